//! Pointers: what a sentence points back at without naming it. A pronoun subject ("It is
//! solved when …"), "that" or "there" after a verb ("The CLI should handle that"), one of the
//! things just listed ("The latter is …"): alone, such a sentence is a hole. Not every pointer
//! is one: "there's a lockfile" says something exists, "keep it simple" is an idiom, and "This
//! is my personal blog, Hugo with …" introduces the project.

use std::sync::LazyLock;

use regex::Regex;

use super::kinds;

/// A sentence that points back at the thing the sentence before it named, or leaves it out
/// ("Avoid inventing our own."): the noun "our own" stands for was said before.
static CONTINUES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:our|your|their|my) own[.!]?\s*$|\b(?:against|to|on|in|from|with|into|through|at|of|touch|use|run|change|changed|deploy|edit|modify|call|handle|do|add|adding|doing|fix|fixed|keep|remove|moved|switched|updated|made|set) (?:it|them|(?:that|this)(?:[,.;:!?]|$| (?:for|to|in|on|automatically|now|again|first|too|as|when|if)\b))|\S\s+there\b|^(?:everything|anything|nothing|all) else\b|^the (?:only )?exceptions? (?:is|are|being|would be)\b|\bdo so\b|\b(?:thing|things|everything|anything|what) (?:it|they|this|that) (?:should|shouldn'?t|must|mustn'?t|does|doesn'?t|did|didn'?t|can|can'?t|will|won'?t|needs to)\b").expect("valid regex")
});

/// Something a pronoun later in the sentence can stand for: a name, a code span, a path,
/// an identifier or a number.
static ANCHOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"`[^`]+`|\w[./_@:-]\w|\d|\s\p{Lu}\w*|\p{Han}{2}").expect("valid regex"));

/// A sentence whose subject is a pronoun ("It is solved when …").
static PRONOUN_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:now,?\s+)?(?:it|this|that|they|these|those)(?:'s|\s)").expect("valid regex")
});

/// A sentence that opens on one of the things just listed ("For the first we don't need
/// force …", "The latter is …"): without the list it is a hole, whatever its kind.
pub(super) static LISTED_ONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:(?:for|in|with|on) )?the (?:first|second|third|former|latter)(?: (?:one|ones|case|part|option|point))?(?:,|\s+(?:we|you|it|is|are|was|should|must|needs?|can|does|doesn'?t|isn'?t)\b)").expect("valid regex")
});

/// A clause of reason or manner after the main one: "…, as we handle that", "because we do
/// that elsewhere".
static SUBORDINATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:as|because|since|given that|so that|while) (?:we|you|they|i|it|the \w+)\b")
        .expect("valid regex")
});

/// A second clause with a subject of its own after the first: "Tomasz cuts the releases
/// usually but he asked for it to be automated", "The cache is shared, so we clear it by hand".
static COORDINATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:,\s*|\s)(?:but|so|and)\s+(?:we|you|they|i|he|she|it)\b").expect("valid regex")
});

/// Does the sentence point back at something it does not name itself ("The CLI should handle
/// that automatically")? Alone, such a sentence is a hole. A pointer in a clause of reason
/// after a whole main clause ("In cloud mode we should not offer the agent choice as we handle
/// that") stands for what that main clause names; so does one in a clause of its own after a
/// main clause that does not open on a pointer ("Tomasz cuts the releases usually but he asked
/// for it to be automated so he stops doing it by hand").
pub(crate) fn has_hole(text: &str) -> bool {
    let opens_on_a_noun = !PRONOUN_SUBJECT.is_match(text);
    CONTINUES.find_iter(text).filter(|m| !existential_there(text, m) && !idiomatic_it(text, m)).any(|m| {
        let before = &text[..m.start()];
        let reasoned = SUBORDINATE.find_iter(before).any(|s| kinds::word_count(&before[..s.start()]) >= 8);
        let coordinated = opens_on_a_noun
            && COORDINATE.find_iter(before).any(|s| kinds::word_count(&before[..s.start()]) >= 4);
        !ANCHOR.is_match(before) && !reasoned && !coordinated
    })
}

/// "Keep it simple", "keep it to the minimal information": an idiom whose "it" is the work in
/// general, not a thing named before.
fn idiomatic_it(text: &str, m: &regex::Match<'_>) -> bool {
    static IDIOM: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^\s+(?:simple|short|minimal|brief|clean|lean|small|tight|concise|readable|to (?:a |the )?(?:minimum|minimal|bare minimum))\b")
            .expect("valid regex")
    });
    m.as_str().to_lowercase().ends_with("keep it") && IDIOM.is_match(&text[m.end()..])
}

/// "…, there's a pnpm-lock.yaml": "there" that says something exists points nowhere.
fn existential_there(text: &str, m: &regex::Match<'_>) -> bool {
    static EXISTS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^(?:'s|’s|\s+(?:is|are|was|were|will|has|have|isn'?t|aren'?t)\b)")
            .expect("valid regex")
    });
    // "The readme in there is …": after a preposition, "there" is a place said before.
    static PLACE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:in|into|from|out of|over|under|up|down|inside|on)\s+there$")
            .expect("valid regex")
    });
    m.as_str().to_lowercase().ends_with("there")
        && EXISTS.is_match(&text[m.end()..])
        && !PLACE.is_match(&text[..m.end()])
}

/// "This should …", "That means …", "Now it is …": a subject that points at the moment.
pub(super) static DEMONSTRATIVE_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:this|that|these|those)\s|^now,?\s+(?:it|they)\b").expect("valid regex")
});

/// "This all goes to Heroku", "it all runs on Fly": everything, not a thing said before.
static ALL_OF_IT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^(?:it|this|that) all\b").expect("valid regex"));

/// "This is my personal blog, Hugo with …", "It's a Kotlin Multiplatform notes app": the
/// project introduced, not a thing said before.
static THE_PROJECT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:this|it)(?: is|'s|’s) (?:my|our|a|an) (?:[\w+#.-]+ ){0,5}(?:app|application|service|site|website|blog|library|lib|tool|cli|project|repo|repository|monorepo|codebase|game|api|backend|frontend|plugin|extension|bot|dashboard|package|sdk|job|pipeline|operator|crate|module|firmware|platform|handbook|server)\b").expect("valid regex")
});

/// Does the sentence say what the project is ("This is my personal blog, Hugo with …")? Not a
/// thing said of it ("It's a MISRA-ish rule for this codebase").
pub(super) fn introduces_the_project(text: &str) -> bool {
    static OF_SOMETHING: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)\s(?:for|of|in|on|to|with|from|about)\s").expect("valid regex"));
    THE_PROJECT.find(text).is_some_and(|m| !OF_SOMETHING.is_match(m.as_str()))
}

/// Does the sentence say what the project is by its name ("reco-serving is a FastAPI service
/// that serves our recommender", "Roster.Api is our ASP.NET Core 8 API")? The name is the
/// project folder's, written with spaces, dashes, dots or underscores alike, and what follows
/// it says what the project is ("is", "'s", "are"), not what it needs ("Grainwave needs a
/// freeze button").
pub(super) fn names_the_project(text: &str, project: &str) -> bool {
    static IS: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)^(?:\s+(?:is|are)\b|'s\b|’s\b)").expect("valid regex"));
    let fold = |s: &str| -> String {
        s.chars()
            .map(|c| if matches!(c, '-' | '_' | '.' | ' ') { ' ' } else { c.to_ascii_lowercase() })
            .collect()
    };
    let name = fold(project.trim());
    if name.trim().chars().count() < 4 {
        return false;
    }
    let text = text.trim_start();
    let text = text.strip_prefix("The ").or_else(|| text.strip_prefix("the ")).unwrap_or(text);
    let Some(head) = text.get(..name.len()) else { return false };
    fold(head) == name && IS.is_match(&text[name.len()..])
}

/// Is the sentence's subject a pronoun ("It is solved when …")?
pub(crate) fn has_pronoun_subject(text: &str) -> bool {
    PRONOUN_SUBJECT.is_match(text) && !ALL_OF_IT.is_match(text) && !THE_PROJECT.is_match(text)
        || LISTED_ONE.is_match(text)
}

/// Can the singular pronoun that opens `text` ("It's published to …") stand for the subject of
/// `before`, the statement it would continue? Not when that subject is plural ("Section owners
/// are in CODEOWNERS"): "it" then stands for something said earlier, which a line built from
/// the two would misname.
pub(super) fn agrees_in_number(text: &str, before: &str) -> bool {
    static SINGULAR: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)^(?:now,?\s+)?it(?:'s|\s)").expect("valid regex"));
    static PLURAL_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^(?:(?:the|our|all|these|those|both|some|most)\s+)?(?:[\w-]+\s+){0,2}[\w-]*[^s\W]s\s+(?:are|were|have|live|go|need|get)\b")
            .expect("valid regex")
    });
    let last = before.rsplit(". ").next().unwrap_or(before).trim_start();
    !(SINGULAR.is_match(text) && PLURAL_SUBJECT.is_match(last))
}

/// "She reviews every UI PR": a person's pronoun as the subject.
static PERSON_PRONOUN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:She|He|she|he)(?:'s|’s|\s)").expect("valid regex"));

/// The sentence with its opening "she" or "he" replaced by the one person the sentence before
/// names ("… for Lena to check. she reviews every UI PR" → "Lena reviews every UI PR"), or
/// `None` when the sentence opens otherwise. `Some(None)`: it opens with the pronoun and the
/// sentence before names no one person, so nothing says who.
pub(crate) fn with_the_person_named_before(text: &str, before: Option<&str>) -> Option<Option<String>> {
    let m = PERSON_PRONOUN.find(text)?;
    let pronoun = m.as_str().trim_end();
    let pronoun_len = pronoun.find(['\'', '’']).unwrap_or(pronoun.len());
    Some(before.and_then(the_one_person_named).map(|name| format!("{name}{}", &text[pronoun_len..])))
}

/// Does `after` open on "he" or "she" while `before` names one person ("I'll ask Joost
/// whether we can get the part" — "he designs the boards")?
pub(crate) fn turns_to_the_person_named(before: &str, after: &str) -> bool {
    PERSON_PRONOUN.is_match(after) && the_one_person_named(before).is_some()
}

/// The one person a sentence names: a capitalised word that is no English word (days and months
/// are) and no tool the vocabulary knows ("… in Storybook for Lena to check" → "Lena"). Two
/// names, or none: `None`.
fn the_one_person_named(sentence: &str) -> Option<&str> {
    static NAME: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?:^|[\s(,;:])\p{Lu}\p{Ll}{2,}\b").expect("valid regex"));
    let mut names = NAME
        .find_iter(sentence)
        .map(|m| m.as_str().trim_start_matches([' ', '\t', '\n', '(', ',', ';', ':']))
        // Days and months are English words of the frequency table.
        .filter(|w| !crate::text::is_known_word(w) && super::vocabulary::VOCABULARY.values_in(w).is_empty())
        .collect::<Vec<_>>();
    names.sort_unstable();
    names.dedup();
    match names.as_slice() {
        [one] => Some(one),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{agrees_in_number, with_the_person_named_before};

    #[test]
    fn she_is_the_one_person_named_just_before() {
        let before =
            "the redesign ships Friday next week btw, so this needs to be in Storybook for Lena to check.";
        assert_eq!(
            with_the_person_named_before("She reviews every UI PR, design-wise.", Some(before)),
            Some(Some("Lena reviews every UI PR, design-wise.".to_string()))
        );
        assert_eq!(
            with_the_person_named_before(
                "she's the one who signs off.",
                Some("Ask Priya, Priya knows pricing.")
            ),
            Some(Some("Priya's the one who signs off.".to_string()))
        );
        // Two people before it, or none: nothing says who.
        assert_eq!(
            with_the_person_named_before("She reviews every PR.", Some("Priya and Dana own billing.")),
            Some(None)
        );
        assert_eq!(with_the_person_named_before("She reviews every PR.", None), Some(None));
        // Not a person's pronoun.
        assert_eq!(with_the_person_named_before("Shell scripts live in bin/.", Some(before)), None);
        assert_eq!(with_the_person_named_before("Helm charts live in charts/.", Some(before)), None);
    }

    #[test]
    fn it_does_not_stand_for_a_plural_subject() {
        let it = "It's published to the internal S3 bucket handbook-site by the deploy job.";
        assert!(!agrees_in_number(it, "Section owners are in CODEOWNERS."));
        assert!(!agrees_in_number(it, "The handbook uses MkDocs. Our docs pages live in docs/."));
        assert!(agrees_in_number(it, "The handbook lives in docs/handbook."));
        assert!(agrees_in_number(it, "Staging is at staging.example.com."));
        // A plural word that is no subject ("This is …"), and "they" for a plural, join.
        assert!(agrees_in_number(it, "This handbook is what new hires read first."));
        assert!(agrees_in_number("They run on every push.", "The e2e tests are in e2e/."));
    }
}
