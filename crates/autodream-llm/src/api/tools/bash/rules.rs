//! The allowed programs' options: per program, which options take a value, which are refused
//! and why (they write, run other programs, follow links out of the readable folders or read
//! lists of files from elsewhere), and how many operands it may have. A table, so that adding
//! a program is adding a row; [`super::check`] applies it.

/// What one program's options look like.
pub(super) struct Rules {
    /// Short options that take an argument.
    pub(super) short_with_arg: &'static str,
    /// Long options that take an argument (`--name VALUE` or `--name=VALUE`).
    pub(super) long_with_arg: &'static [&'static str],
    /// Short options refused, with the reason.
    pub(super) refused_short: &'static [(char, &'static str)],
    /// Long options refused (GNU tools accept unambiguous abbreviations, so any prefix of
    /// these is refused too), with the reason.
    pub(super) refused_long: &'static [(&'static str, &'static str)],
    /// Most operands (uniq's second operand is an output file).
    pub(super) max_operands: Option<usize>,
    /// grep: the first operand is the pattern unless `-e` was given.
    pub(super) pattern_operand: bool,
}

pub(super) const NO_LINKS: &str = "it follows symbolic links, which may lead outside the readable folders";
pub(super) const READS_LIST: &str =
    "it reads names or patterns from another file; name files as operands instead";

/// The rules of every program in [`super::ALLOWED_PROGRAMS`] but `find` (whose expression is
/// checked on its own).
const RULES: &[(&str, Rules)] = &[
    (
        "ls",
        Rules {
            short_with_arg: "ITw",
            long_with_arg: &[
                "--block-size",
                "--format",
                "--hide",
                "--ignore",
                "--indicator-style",
                "--quoting-style",
                "--sort",
                "--tabsize",
                "--time",
                "--time-style",
                "--width",
            ],
            refused_short: &[('L', NO_LINKS)],
            refused_long: &[("--dereference", NO_LINKS)],
            max_operands: None,
            pattern_operand: false,
        },
    ),
    (
        "cat",
        Rules {
            short_with_arg: "",
            long_with_arg: &[],
            refused_short: &[],
            refused_long: &[],
            max_operands: None,
            pattern_operand: false,
        },
    ),
    (
        "head",
        Rules {
            short_with_arg: "nc",
            long_with_arg: &["--lines", "--bytes"],
            refused_short: &[],
            refused_long: &[],
            max_operands: None,
            pattern_operand: false,
        },
    ),
    (
        "tail",
        Rules {
            short_with_arg: "ncs",
            long_with_arg: &["--lines", "--bytes", "--sleep-interval", "--max-unchanged-stats"],
            refused_short: &[('f', "it never ends"), ('F', "it never ends")],
            refused_long: &[
                ("--follow", "it never ends"),
                ("--retry", "it never ends"),
                ("--pid", "it never ends"),
            ],
            max_operands: None,
            pattern_operand: false,
        },
    ),
    (
        "wc",
        Rules {
            short_with_arg: "",
            long_with_arg: &[],
            refused_short: &[],
            refused_long: &[("--files0-from", READS_LIST)],
            max_operands: None,
            pattern_operand: false,
        },
    ),
    (
        "grep",
        Rules {
            short_with_arg: "eABCmdD",
            long_with_arg: &[
                "--regexp",
                "--after-context",
                "--before-context",
                "--context",
                "--max-count",
                "--label",
                "--include",
                "--exclude",
                "--exclude-dir",
                "--binary-files",
                "--devices",
                "--directories",
                "--group-separator",
            ],
            refused_short: &[('f', READS_LIST), ('R', NO_LINKS)],
            refused_long: &[
                ("--file", READS_LIST),
                ("--exclude-from", READS_LIST),
                ("--dereference-recursive", NO_LINKS),
            ],
            max_operands: None,
            pattern_operand: true,
        },
    ),
    (
        "stat",
        Rules {
            short_with_arg: "c",
            long_with_arg: &["--format", "--printf"],
            refused_short: &[('L', NO_LINKS)],
            refused_long: &[("--dereference", NO_LINKS)],
            max_operands: None,
            pattern_operand: false,
        },
    ),
    (
        "file",
        Rules {
            short_with_arg: "FeP",
            long_with_arg: &["--separator", "--exclude", "--exclude-quiet", "--parameter"],
            refused_short: &[
                ('C', "it compiles a magic file, which writes"),
                ('m', READS_LIST),
                ('f', READS_LIST),
                ('L', NO_LINKS),
            ],
            refused_long: &[
                ("--compile", "it writes a compiled magic file"),
                ("--magic-file", READS_LIST),
                ("--files-from", READS_LIST),
                ("--dereference", NO_LINKS),
            ],
            max_operands: None,
            pattern_operand: false,
        },
    ),
    (
        "sort",
        Rules {
            short_with_arg: "ktS",
            long_with_arg: &[
                "--key",
                "--field-separator",
                "--buffer-size",
                "--parallel",
                "--batch-size",
                "--sort",
            ],
            refused_short: &[('o', "it writes its output to a file"), ('T', "it writes temporary files")],
            refused_long: &[
                ("--output", "it writes its output to a file"),
                ("--temporary-directory", "it writes temporary files"),
                ("--compress-program", "it runs another program"),
                ("--files0-from", READS_LIST),
                ("--random-source", READS_LIST),
            ],
            max_operands: None,
            pattern_operand: false,
        },
    ),
    (
        "uniq",
        Rules {
            short_with_arg: "fsw",
            long_with_arg: &["--skip-fields", "--skip-chars", "--check-chars"],
            refused_short: &[],
            refused_long: &[],
            max_operands: Some(1),
            pattern_operand: false,
        },
    ),
    (
        "du",
        Rules {
            short_with_arg: "Bdt",
            long_with_arg: &["--block-size", "--max-depth", "--threshold", "--exclude", "--time-style"],
            refused_short: &[('L', NO_LINKS), ('X', READS_LIST), ('D', NO_LINKS), ('H', NO_LINKS)],
            refused_long: &[
                ("--dereference", NO_LINKS),
                ("--dereference-args", NO_LINKS),
                ("--files0-from", READS_LIST),
                ("--exclude-from", READS_LIST),
            ],
            max_operands: None,
            pattern_operand: false,
        },
    ),
];

/// The rules of `program`, if it is one Bash runs with generic option checks.
pub(super) fn rules(program: &str) -> Option<&'static Rules> {
    RULES.iter().find(|(name, _)| *name == program).map(|(_, rules)| rules)
}
