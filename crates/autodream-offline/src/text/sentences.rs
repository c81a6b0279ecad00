//! Sentences and clauses: where a text's sentences end (terminators, but not abbreviations,
//! initials or numbers) and where a sentence's clauses start.

use super::{is_terminator, words};

/// Abbreviations after which a period does not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "st", "jr", "sr", "vs", "etc", "eg", "ie", "prof", "inc", "ltd", "mt", "ft",
    "approx", "dept", "fig", "al",
];

/// Splits `text` into sentences (trimmed, non-empty). A sentence ends at a terminator
/// (`. ! ? …` and their CJK forms) followed by whitespace, a closing quote or bracket and
/// whitespace, or the end; CJK terminators end a sentence wherever they are; a newline
/// always ends one. Periods after abbreviations, initials (`J.K.`), inside numbers and inside
/// a code span do not.
pub fn split_sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.split('\n') {
        split_line(line, &mut out);
    }
    out
}

fn split_line<'a>(line: &'a str, out: &mut Vec<&'a str>) {
    let mut start = 0;
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut k = 0;
    // Parentheses open at this point: "(!!! warning)", "(e.g. this one.)" end no sentence.
    let mut depth = 0usize;
    // Inside a code span ("`xcodebuild test ... -only-testing:VaultTests`") a period is the
    // command's, not a sentence's end.
    let mut in_code = false;
    // Does the writer set clauses apart with dots and no space ("a planet..and we have
    // things..but my goal is")? Twice in a line is a habit, not a range like `main..HEAD`.
    let dotted_habit = DOTS_BETWEEN_WORDS.find_iter(line).nth(1).is_some();
    while k < chars.len() {
        let (i, c) = chars[k];
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '`' => in_code = !in_code && line[i + 1..].contains('`'),
            _ => {}
        }
        if in_code {
            k += 1;
            continue;
        }
        // A short aside only: a long one ("(side note: … all morning. profiles are updated.)")
        // holds sentences of its own.
        let closes_soon = line[i..].find(')').is_some_and(|at| at <= 30);
        if !is_terminator(c) || depth > 0 && !matches!(c, '。' | '！' | '？' | '；') && closes_soon {
            k += 1;
            continue;
        }
        // Swallow a run of terminators and closing quotes/brackets.
        let mut j = k + 1;
        while j < chars.len()
            && (is_terminator(chars[j].1)
                || matches!(chars[j].1, '"' | '\'' | '”' | '’' | ')' | ']' | '」' | '』'))
        {
            j += 1;
        }
        let end = chars.get(j).map_or(line.len(), |&(p, _)| p);
        let cjk_stop = matches!(c, '。' | '！' | '？' | '；');
        let at_space = chars.get(j).is_none_or(|&(_, n)| n.is_whitespace());
        if !at_space && dots_between_clauses(line, i, end, dotted_habit) {
            let sentence = line[start..i].trim();
            if !sentence.is_empty() {
                out.push(sentence);
            }
            start = end;
            k = j;
            continue;
        }
        if !(cjk_stop || at_space) {
            k = j;
            continue;
        }
        if c == '.'
            && j == k + 1
            && is_abbreviation_before(&line[start..i])
            && !ends_a_list(&line[start..i], &line[end..])
        {
            k = j;
            continue;
        }
        let sentence = line[start..end].trim();
        if !sentence.is_empty() {
            out.push(sentence);
        }
        start = end;
        k = j;
    }
    let rest = line[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
}

/// "planet..and", "level 2..we": two or three dots between two words, no space.
static DOTS_BETWEEN_WORDS: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"[\p{L}\p{N}]\.{2,3}\p{L}").expect("valid regex"));

/// Do the dots at `line[at..end]` set two clauses apart: two or three dots between a word and
/// the next, when the writer does so out of habit or the next word opens a clause ("recap..so
/// far")? `main..HEAD`, `cd ..` and `...args` are no such dots.
fn dots_between_clauses(line: &str, at: usize, end: usize, habit: bool) -> bool {
    let dots = &line[at..end];
    if !(2..=3).contains(&dots.len()) || dots.chars().any(|c| c != '.') {
        return false;
    }
    let before = line[..at].chars().next_back();
    let next_word: &str = line[end..].split(|c: char| !c.is_alphanumeric() && c != '\'').next().unwrap_or("");
    if !before.is_some_and(char::is_alphanumeric) || !next_word.starts_with(char::is_alphabetic) {
        return false;
    }
    // "origin/main..feature": a range of refs or paths, however often it comes.
    let word_before = line[..at].rsplit(char::is_whitespace).next().unwrap_or("");
    let word_after = line[end..].split(char::is_whitespace).next().unwrap_or("");
    if [word_before, word_after].iter().any(|w| w.contains(['/', '\\', ':', '=', '@', '~', '^'])) {
        return false;
    }
    // "shoot..if you dont read instructions..which most people dont": what a subordinate word
    // opens leans on the clause before it.
    const LEANS_BACK: &[&str] = &[
        "if", "when", "whenever", "unless", "because", "cuz", "since", "which", "who", "whom", "whose",
        "where", "while", "though", "although", "as", "than", "for", "to", "like", "until", "till",
    ];
    if LEANS_BACK.contains(&next_word.to_lowercase().as_str()) {
        return false;
    }
    habit || super::is_function_word(next_word)
}

/// Words that open a new clause after a comma, semicolon or colon. A comma followed by
/// anything else is kept inside its clause, so lists ("love, faith and strength") stay whole.
const CLAUSE_OPENERS: &[&str] = &[
    "and", "but", "so", "because", "which", "who", "where", "when", "while", "since", "although", "though",
    "plus", "then", "as", "if", "or", "i", "we", "they", "he", "she", "it", "you", "my", "our", "this",
    "that", "there", "it's", "i'm", "we're", "they're", "that's", "there's", "i've", "we've", "they've",
];
/// Subjects that, after ", and", start a new clause rather than a list item.
const CLAUSE_SUBJECTS: &[&str] = &[
    "i", "we", "they", "he", "she", "it", "you", "my", "our", "it's", "i'm", "we're", "they're", "that",
    "this", "there", "i've", "we've", "i'd", "i'll",
];
/// "I" in its forms: a clause subject after a bare "and" once the clause before it is
/// longer than a compound subject ("my husband and I") can be.
const FIRST_PERSON_SUBJECTS: &[&str] = &["i", "i'm", "i've", "i'll", "i'd"];
/// Words since the last cut before "and I" may start a clause.
const BARE_AND_I_MIN_WORDS: usize = 4;
/// Conjunctions that open a subordinate clause when a subject follows them, comma or not.
const BARE_SUBORDINATORS: &[&str] =
    &["so", "when", "after", "before", "until", "since", "if", "'cause", "cause"];
/// Subjects that start a new clause after "and" without a comma (never a list item or a
/// compound subject like "my husband and I": "I" is left out).
const BARE_AND_SUBJECTS: &[&str] = &[
    "it", "it's", "we", "we're", "we've", "they", "they're", "he", "she", "that", "that's", "there",
    "there's",
];
/// Conjunctions that open a new clause even without a comma ("so" without one is mostly
/// an intensifier: "it was so good").
const CLAUSE_CONJUNCTIONS: &[&str] = &["but", "because", "which", "while"];
/// A clause shorter than this many words stays with its neighbour.
const CLAUSE_MIN_WORDS: usize = 3;

/// Splits a sentence into clauses: at a dash between spaces, before a clause-opening
/// conjunction ("but", "because", "which", "while"), and at a comma, semicolon or
/// colon followed by a clause opener (a conjunction or a pronoun). Returns
/// `(separator, clause)` pairs: the text that stood between the previous clause and this
/// one (empty for the first), so consecutive clauses join back to the sentence.
pub fn split_clauses(sentence: &str) -> Vec<(&str, &str)> {
    split_clauses_about(sentence, None)
}

/// [`split_clauses`] for a sentence already attributed to `subject` (a fact read back from
/// a topic file): the subject's name opens a clause where "I" did, so a sentence splits the
/// same before and after attribution.
pub fn split_clauses_about<'a>(sentence: &'a str, subject: Option<&str>) -> Vec<(&'a str, &'a str)> {
    let subject_key = subject.map(|s| s.to_lowercase());
    let is_subject = |w: &str| {
        let k = w.to_lowercase().replace('’', "'");
        CLAUSE_SUBJECTS.contains(&k.as_str())
            || subject_key.as_deref().is_some_and(|s| k == s || k.strip_suffix("'s") == Some(s))
    };
    let ws = words(sentence);
    // Candidate cut points: (end of previous clause, start of next clause).
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    // Never cut inside a quotation ("Turn on the light - happiness hides…").
    let quoted = |pos: usize| sentence[..pos].matches(['"', '“', '”']).count() % 2 == 1;
    let mut last_cut_word = 0;
    for (i, w) in ws.iter().enumerate().skip(1) {
        if quoted(w.start) {
            continue;
        }
        let gap = &sentence[ws[i - 1].end()..w.start];
        let key = w.text.to_lowercase().replace('’', "'");
        let gap_trim = gap.trim().trim_start_matches(['"', '”', '’', '\'', ')', ']']).trim();
        let cut = if matches!(gap_trim, "-" | "–" | "—" | "--") && gap.starts_with(' ') {
            true
        } else if matches!(gap_trim, "," | ";" | ":") {
            // ", and" / ", or" end a list unless a new subject follows ("…, and I went").
            if matches!(key.as_str(), "and" | "or") {
                ws.get(i + 1).is_some_and(|n| is_subject(n.text))
            } else {
                CLAUSE_OPENERS.contains(&key.as_str())
            }
        } else if gap_trim.is_empty() && BARE_SUBORDINATORS.contains(&key.as_str()) {
            // "… felt proud when I saw it": a subordinate clause with its own subject.
            ws.get(i + 1).is_some_and(|n| is_subject(n.text))
        } else if gap_trim.is_empty() && key == "and" {
            // "… yesterday and it was so powerful": a new subject and its verb after a bare
            // "and" start a clause of their own. "I" (or the subject's name where "I" was
            // said) only after a few words: "my husband and I went" is one subject.
            ws.get(i + 1).is_some_and(|n| {
                let next = n.text.to_lowercase().replace('’', "'");
                BARE_AND_SUBJECTS.contains(&next.as_str())
                    || ((FIRST_PERSON_SUBJECTS.contains(&next.as_str())
                        || subject_key.as_deref() == Some(next.as_str()))
                        && i - last_cut_word >= BARE_AND_I_MIN_WORDS)
            })
        } else {
            gap_trim.is_empty() && CLAUSE_CONJUNCTIONS.contains(&key.as_str())
        };
        if cut {
            last_cut_word = i;
            // Closing quotes and brackets stay with the clause they close.
            let closing = gap.len() - gap.trim_start_matches(['"', '”', '’', '\'', ')', ']']).len();
            cuts.push((ws[i - 1].end() + closing, w.start));
        }
    }
    // Keep only cuts that leave clauses of at least CLAUSE_MIN_WORDS words on both sides.
    let word_count = |a: usize, b: usize| ws.iter().filter(|w| w.start >= a && w.end() <= b).count();
    let mut kept: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for (k, &(end, next)) in cuts.iter().enumerate() {
        let following_end = cuts.get(k + 1).map_or(sentence.len(), |c| c.0);
        if word_count(start, end) >= CLAUSE_MIN_WORDS
            && word_count(next, following_end.max(next)) >= CLAUSE_MIN_WORDS
        {
            kept.push((end, next));
            start = next;
        }
    }
    let mut out = Vec::with_capacity(kept.len() + 1);
    let mut start = 0;
    let mut sep = "";
    for (end, next) in kept {
        out.push((sep, sentence[start..end].trim()));
        sep = &sentence[end..next];
        start = next;
    }
    out.push((sep, sentence[start..].trim()));
    out
}

/// Does the text before a period end with an abbreviation or an initial?
fn is_abbreviation_before(before: &str) -> bool {
    let last = before.rsplit(|c: char| c.is_whitespace() || c == '(' || c == '"').next().unwrap_or("");
    let last = last.trim_start_matches(|c: char| !c.is_alphanumeric());
    if last.is_empty() {
        return false;
    }
    // Initials: "J", "J.K", "U.S".
    if last.split('.').all(|p| p.chars().count() == 1 && p.chars().all(char::is_uppercase)) {
        return true;
    }
    let key = last.to_lowercase().replace('.', "");
    ABBREVIATIONS.contains(&key.as_str())
}

/// Words that open a sentence after a list closed by "etc.": "… added to functions, etc. I want
/// to …". Any other word after "etc." stays in its sentence ("etc. Rust and Go are …" is rare;
/// "apples, pears etc. Mostly fruit" is a fragment either way).
const OPENERS_AFTER_ETC: &[&str] = &[
    "I", "We", "You", "They", "It", "This", "That", "The", "So", "But", "And", "Also", "My", "Our", "There",
];

/// Does "etc." close its sentence here: the abbreviation is "etc" and the next word opens a
/// sentence?
fn ends_a_list(before: &str, after: &str) -> bool {
    let last = before.rsplit(|c: char| c.is_whitespace() || c == ',').next().unwrap_or("");
    if !last.eq_ignore_ascii_case("etc") {
        return false;
    }
    let next = after.trim_start().split(|c: char| c.is_whitespace() || c == ',').next().unwrap_or("");
    OPENERS_AFTER_ETC.contains(&next) || next.starts_with("I'") || next.starts_with("I’")
}
