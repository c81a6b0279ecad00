//! Splitting Bash's command line into words, as a POSIX shell would for the plain cases, and
//! refusing everything a shell would treat specially: operators, expansions, comments.
//! Nothing here knows about programs or files; [`super::check`] takes the words from here.

use crate::sandbox::Denial;

/// Splits a command line into words the way a POSIX shell would for the plain cases, and
/// refuses everything a shell would treat specially.
pub fn split_words(line: &str) -> Result<Vec<String>, Denial> {
    #[derive(PartialEq)]
    enum Quote {
        None,
        Single,
        Double,
    }
    let refuse = |what: &str| {
        Err(Denial(format!(
            "{what}: Bash here is not a shell and runs exactly one read-only program; no pipes, \
             redirections, command lists, substitutions, variables or unquoted globs. Use one command, \
             quote patterns, or use the Grep, Glob and Read tools"
        )))
    };
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote = Quote::None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Quote::Single => {
                if c == '\'' {
                    quote = Quote::None;
                } else {
                    word.push(c);
                }
            }
            Quote::Double => match c {
                '"' => quote = Quote::None,
                '$' => return refuse("`$` expands variables or commands even inside double quotes"),
                '`' => return refuse("backquotes run commands"),
                '\\' => match chars.next() {
                    Some(next @ ('"' | '\\' | '$' | '`')) => word.push(next),
                    Some('\n') => return refuse("a line continuation"),
                    Some(next) => {
                        word.push('\\');
                        word.push(next);
                    }
                    None => return refuse("an unterminated double quote"),
                },
                _ => word.push(c),
            },
            Quote::None => match c {
                ' ' | '\t' => {
                    if in_word {
                        words.push(std::mem::take(&mut word));
                        in_word = false;
                    }
                }
                '\n' | '\r' => return refuse("a line break (more than one command)"),
                '\'' => {
                    quote = Quote::Single;
                    in_word = true;
                }
                '"' => {
                    quote = Quote::Double;
                    in_word = true;
                }
                '\\' => match chars.next() {
                    Some('\n') | None => return refuse("a trailing backslash"),
                    Some(next) => {
                        word.push(next);
                        in_word = true;
                    }
                },
                ';' => return refuse("`;` (a command list)"),
                '|' => return refuse("`|` (a pipe)"),
                '&' => return refuse("`&` (background or `&&`)"),
                '>' => return refuse("`>` (an output redirection)"),
                '<' => return refuse("`<` (an input redirection)"),
                '(' | ')' => return refuse("parentheses (a subshell)"),
                '`' => return refuse("backquotes (command substitution)"),
                '$' => return refuse("`$` (a variable or substitution)"),
                '*' | '?' | '[' | ']' => return refuse("an unquoted glob character"),
                '{' | '}' => return refuse("braces (brace expansion)"),
                '~' if !in_word => return refuse("`~` (home directory expansion)"),
                '#' if !in_word => return refuse("`#` (a comment)"),
                _ => {
                    word.push(c);
                    in_word = true;
                }
            },
        }
    }
    if quote != Quote::None {
        return refuse("an unterminated quote");
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_follow_shell_quoting() {
        assert_eq!(
            split_words("grep -rn 'a b' \"c d\" e\\ f").unwrap(),
            ["grep", "-rn", "a b", "c d", "e f"]
        );
        assert_eq!(split_words("grep \"x|y\" 'a;b'").unwrap(), ["grep", "x|y", "a;b"]);
        assert_eq!(split_words("ls ''").unwrap(), ["ls", ""]);
        assert_eq!(split_words("grep 'it''s'").unwrap(), ["grep", "its"]);
        assert_eq!(split_words("  ls   -la  ").unwrap(), ["ls", "-la"]);
    }

    #[test]
    fn operators_and_expansions_outside_single_quotes_are_refused() {
        for line in [
            "ls; rm x",
            "ls | wc",
            "ls && ls",
            "ls > f",
            "cat < f",
            "ls $(pwd)",
            "ls `pwd`",
            "echo $HOME",
            "ls *.md",
            "ls {a,b}",
            "ls ~/x",
            "ls # c",
            "ls\nrm x",
            "grep \"$x\"",
            "ls 'unterminated",
            "(ls)",
            "ls &",
        ] {
            assert!(split_words(line).is_err(), "{line:?} should be refused");
        }
        assert_eq!(split_words("grep '$x' f").unwrap(), ["grep", "$x", "f"]);
        assert_eq!(split_words("grep 'a*' f").unwrap(), ["grep", "a*", "f"]);
    }
}
