//! Slots of the developer world: which tools and values fill the same role.
//!
//! `data/vocabulary.txt` lists, by category (CI systems, package managers, clouds and regions,
//! databases, ORMs, test runners, frameworks, state managers, DI libraries, build tools,
//! linters, observability …), the names a project may use. A category marked `one` is a slot a
//! project fills with one value at a time: a statement naming a new value of it replaces the
//! older statement naming another ("the tests run on Vitest" after "we use Jest"), even with no
//! change word; two statements that differ only in such a value are never merged as the same
//! fact. A category marked `many` (languages, observability tools) holds values side by side.
//!
//! A name that is also a common English word ("Task", "Play", "Signals") is left out of the
//! matching: as a word it would fill slots nobody spoke of.

use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;

use regex::Regex;

/// The vocabulary file, compiled in.
pub const VOCABULARY_TXT: &str = include_str!("../../data/vocabulary.txt");

/// One category of the vocabulary.
#[derive(Debug, Clone, PartialEq)]
pub struct Category {
    pub name: String,
    /// A project holds one value of it at a time.
    pub exclusive: bool,
    pub values: Vec<String>,
}

/// The vocabulary, with a matcher over every usable name.
#[derive(Debug)]
pub struct Vocabulary {
    pub categories: Vec<Category>,
    matcher: Regex,
    /// Lower-cased name → the categories it belongs to.
    by_name: HashMap<String, Vec<usize>>,
}

/// Reads a vocabulary file; an error names the line.
pub fn parse(text: &str) -> Result<Vocabulary, String> {
    let mut categories: Vec<Category> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(head) = line.strip_prefix('[') {
            let (name, kind) = head.split_once(']').ok_or_else(|| {
                format!("vocabulary.txt line {}: a category line is `[name] one|many`", n + 1)
            })?;
            let exclusive = match kind.trim() {
                "one" => true,
                "many" => false,
                other => {
                    return Err(format!("vocabulary.txt line {}: `{other}` is not `one` or `many`", n + 1));
                }
            };
            categories.push(Category { name: name.trim().to_string(), exclusive, values: Vec::new() });
            continue;
        }
        let category = categories
            .last_mut()
            .ok_or_else(|| format!("vocabulary.txt line {}: names before the first category", n + 1))?;
        category.values.extend(line.split(',').map(str::trim).filter(|v| !v.is_empty()).map(String::from));
    }
    let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, c) in categories.iter().enumerate() {
        for v in &c.values {
            if usable(v) {
                by_name.entry(v.to_lowercase()).or_default().push(i);
            }
        }
    }
    let mut names: Vec<&String> = by_name.keys().collect();
    // Longest first, so "Spring Boot" wins over "Spring" and "Node.js 20" over "Node.js".
    names.sort_by_key(|n| std::cmp::Reverse(n.len()));
    let alternation = names.iter().map(|n| regex::escape(n)).collect::<Vec<_>>().join("|");
    let matcher = Regex::new(&format!(r"(?i)(?:^|[^\w.+#/-])({alternation})(?:$|[^\w+#/-])"))
        .map_err(|e| format!("vocabulary.txt: {e}"))?;
    Ok(Vocabulary { categories, matcher, by_name })
}

/// A name is matched unless it is one short or common English word.
fn usable(name: &str) -> bool {
    if name.chars().count() < 2 {
        return false;
    }
    if name.contains([' ', '.', '-', '_', '/', '+', '#']) || name.chars().any(|c| c.is_ascii_digit()) {
        return true;
    }
    use crate::text::Commonness;
    matches!(crate::text::commonness(&name.to_lowercase()), Commonness::Rare) && name.chars().count() >= 3
}

/// "… for the API", "… in the worker", "… of the mobile app": the part of the project a value is
/// said of.
static SCOPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:for|in|inside|within|of|on) (?:the|our) ([a-z][\w-]*(?: [a-z][\w-]*)?)")
        .expect("valid regex")
});
/// Words of a scope that name no part of the project.
const NOT_A_PART: &[&str] = &[
    "end",
    "moment",
    "future",
    "past",
    "meantime",
    "repo",
    "repository",
    "project",
    "codebase",
    "team",
    "cloud",
    "first",
    "same",
    "way",
    "case",
    "long",
    "time",
    "morning",
    "evening",
    "weekend",
];

/// The parts of the project a statement speaks of (their last word, lower-cased).
pub(crate) fn scopes(text: &str) -> BTreeSet<String> {
    SCOPE
        .captures_iter(text)
        .filter_map(|c| {
            // "for the API now": a part's name ends before a word that names nothing.
            c[1].split_whitespace()
                .take_while(|w| !crate::text::is_function_word(w))
                .last()
                .map(str::to_lowercase)
        })
        .filter(|w| !NOT_A_PART.contains(&w.as_str()) && !VOCABULARY_NAMES.contains(w))
        .collect()
}

/// Every name of the vocabulary, lower-cased (a scope is a part of the project, not a tool).
static VOCABULARY_NAMES: LazyLock<std::collections::HashSet<String>> =
    LazyLock::new(|| VOCABULARY.by_name.keys().cloned().collect());

/// The vocabulary, read once (the tests check the file).
pub static VOCABULARY: LazyLock<Vocabulary> =
    LazyLock::new(|| parse(VOCABULARY_TXT).expect("data/vocabulary.txt is valid"));

impl Vocabulary {
    /// Is `word` a name the vocabulary writes in lower case ("dbt", "pnpm", "npm")? Such a
    /// name keeps its case at the start of a line.
    pub fn is_lower_case_name(&self, word: &str) -> bool {
        !word.is_empty()
            && word.chars().all(|c| !c.is_uppercase())
            && self.by_name.get(word).is_some_and(|cats| {
                cats.iter().any(|&i| self.categories[i].values.iter().any(|v| v.as_str() == word))
            })
    }

    /// The text with its first letter capitalised, unless it opens with a code name or with a
    /// tool the vocabulary writes in lower case ("dbt 1.9 prep: …").
    pub fn capitalise(&self, text: &str) -> String {
        let first = text.split_whitespace().next().unwrap_or("");
        if self.is_lower_case_name(first) {
            return text.to_string();
        }
        crate::render::capitalise_first(text)
    }

    /// The (category, lower-cased name) pairs a text names.
    pub fn values_in(&self, text: &str) -> BTreeSet<(usize, String)> {
        let mut out = BTreeSet::new();
        let mut at = 0;
        // Matches share their boundary characters; step one past each match's start.
        while let Some(c) = self.matcher.captures_at(text, at) {
            let m = c.get(1).expect("group");
            let name = m.as_str().to_lowercase();
            for &i in self.by_name.get(&name).map(Vec::as_slice).unwrap_or(&[]) {
                out.insert((i, name.clone()));
            }
            at = m.end();
        }
        out
    }

    /// Does `new` fill a one-value slot that `old` fills with another value (and neither
    /// names the other's)?
    pub fn replaces(&self, new: &str, old: &str) -> bool {
        let (n, o) = (self.values_in(new), self.values_in(old));
        // "Prisma for the API" and "Drizzle in the worker": one slot, two subjects; both stand.
        let (ns, os) = (scopes(new), scopes(old));
        if !ns.is_empty() && !os.is_empty() && ns.is_disjoint(&os) {
            return false;
        }
        n.iter().any(|(cat, value)| {
            self.categories[*cat].exclusive
                && !o.contains(&(*cat, value.clone()))
                && o.iter().any(|(oc, ov)| oc == cat && ov != value && !n.contains(&(*oc, ov.clone())))
        })
    }

    /// Do two texts name different values of one slot (so they are never the same fact)?
    pub fn differ_in_value(&self, a: &str, b: &str) -> bool {
        self.replaces(a, b) || self.replaces(b, a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vocabulary_loads_with_enough_categories_and_names() {
        let v = &*VOCABULARY;
        assert!(v.categories.len() >= 40, "{} categories", v.categories.len());
        let names: usize = v.categories.iter().map(|c| c.values.len()).sum();
        assert!(names >= 1500, "{names} names");
        for c in ["ci system", "package manager", "region", "orm", "test runner", "state manager"] {
            assert!(v.categories.iter().any(|k| k.name == c && k.exclusive), "{c}");
        }
        assert!(parse("npm, yarn").unwrap_err().contains("line 1"));
        assert!(parse("[x] some\nnpm").unwrap_err().contains("not `one` or `many`"));
    }

    #[test]
    fn a_new_value_of_a_slot_replaces_the_old_one_without_change_words() {
        let v = &*VOCABULARY;
        assert!(
            v.replaces("The pipeline runs on CircleCI.", "CI runs on Jenkins, the job is nightly-build.")
        );
        assert!(v.replaces("We install with pnpm.", "Use yarn, the repo is on yarn.lock."));
        assert!(v.replaces("The API is deployed to eu-central-1.", "Production lives in us-east-1."));
        // Naming both is a statement of the change, handled by the update rules; a value of a
        // side-by-side category replaces nothing.
        assert!(!v.replaces("We moved from Jenkins to CircleCI.", "CI runs on Jenkins."));
        assert!(!v.replaces("The service is written in Go.", "The scripts are in Python."));
        assert!(!v.replaces("Run the task with make.", "Let's play the demo."));
        assert!(v.differ_in_value("Tests run on Jest.", "Tests run on Vitest."));
        assert!(!v.differ_in_value("Tests run on Jest.", "We run Jest in watch mode."));
        // One slot, two parts of the project: both stand.
        assert!(!v.replaces("Drizzle is the ORM in the worker.", "We use Prisma for the API."));
        assert!(v.replaces("We use Drizzle for the API now.", "We use Prisma for the API."));
        // Ingress controllers and embedded stores hold one value each.
        assert!(
            v.replaces("From now on every service uses ALB Ingress.", "Ingress is nginx-ingress for now.")
        );
        assert!(v.replaces("The store runs on LMDB.", "The storage engine is RocksDB."));
    }
}
