//! Dictated names: a name the user spoke comes back in the spelling the session uses.
//!
//! People who dictate to their agent get names split or hyphenated by speech-to-text: "MSI X"
//! for MSIX, "co-pilot-instructions.md" for copilot-instructions.md. The agent, its tools and
//! the files it read spell the same name as it is. A memory line keeps the user's words, but a
//! later search for the name (the agent's, the user's, `autodream why`) finds only its real
//! spelling, so a name the session spells otherwise takes the session's spelling.
//!
//! Only two forms are respelled, each only when the session holds the joined spelling:
//!
//! | the user's form | the session's spelling |
//! |---|---|
//! | a hyphenated name with a file extension, a digit or an inner capital | "co-pilot-instructions.md" → copilot-instructions.md |
//! | an upper-case word and a trailing capital or two | "MSI X" → MSIX |
//!
//! Two ordinary words ("set up", "Claude Code") are never joined, whatever the code says.

use std::cell::OnceCell;
use std::sync::LazyLock;

use regex::Regex;

use autodream_core::sessions::{Role, Turn};

use crate::text::re;

/// "co-pilot-instructions.md", "pre-commit-hooks.yaml", "Git-Hub": a word with hyphens inside.
static HYPHENATED: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:^|[\s(`'\x22])([A-Za-z0-9]+(?:-[A-Za-z0-9]+)+(?:\.[A-Za-z0-9]{1,6})?)\b"));
/// "MSI X", "AWS SDKV": an upper-case word and a short upper-case tail, spoken apart.
static SPOKEN_APART: LazyLock<Regex> = LazyLock::new(|| re(r"\b([A-Z]{2,6}) ([A-Z]{1,2})\b"));

/// At most this many hyphens in a name are tried both ways (2^n spellings).
const MAX_HYPHENS: usize = 4;

/// What one session spells: the agent's words and the tools' output, read once, when the user
/// first says a name that may be dictated.
pub struct SessionSpelling<'a> {
    turns: &'a [Turn],
    text: OnceCell<String>,
}

impl<'a> SessionSpelling<'a> {
    pub fn new(turns: &'a [Turn]) -> Self {
        Self { turns, text: OnceCell::new() }
    }

    /// Everything in the session that is not the user's own typing.
    fn text(&self) -> &str {
        self.text.get_or_init(|| {
            let mut all = String::new();
            for turn in self.turns {
                // The user's turns hold the dictated form; tool results are the session's.
                if turn.role == Role::User && turn.is_conversation() {
                    continue;
                }
                all.push_str(&turn.text);
                all.push('\n');
            }
            all
        })
    }

    /// Does the session spell `name` as a word of its own (case as given)?
    fn spells(&self, name: &str) -> bool {
        let text = self.text();
        let is_part = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
        text.match_indices(name).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let mut after = text[at + name.len()..].chars();
            // "MSIX." ends a sentence; "MSIX.msi" is another name.
            let ends = match after.next() {
                None => true,
                Some('.') => after.next().is_none_or(|c| !c.is_alphanumeric()),
                Some(c) => !is_part(c),
            };
            before.is_none_or(|c| !is_part(c) && c != '.') && ends
        })
    }

    /// The user's prose with each dictated name in the session's spelling.
    pub fn respell(&self, prose: &str) -> String {
        // (where the name is said, the session's spelling), in order of appearance.
        let mut changes: Vec<(std::ops::Range<usize>, String)> = Vec::new();
        for c in HYPHENATED.captures_iter(prose) {
            let said = c.get(1).expect("group");
            let name = said.as_str();
            if !name_like(name) || name.matches('-').count() > MAX_HYPHENS || self.spells(name) {
                continue;
            }
            if let Some(spelled) = joinings(name).into_iter().find(|s| self.spells(s)) {
                changes.push((said.range(), spelled));
            }
        }
        for c in SPOKEN_APART.captures_iter(prose) {
            let said = c.get(0).expect("match");
            let joined = format!("{}{}", &c[1], &c[2]);
            if !self.spells(said.as_str()) && self.spells(&joined) {
                changes.push((said.range(), joined));
            }
        }
        if changes.is_empty() {
            return prose.to_string();
        }
        changes.sort_by_key(|(at, _)| at.start);
        let mut out = String::with_capacity(prose.len());
        let mut from = 0;
        for (at, spelled) in changes {
            if at.start < from {
                continue;
            }
            out.push_str(&prose[from..at.start]);
            out.push_str(&spelled);
            from = at.end;
        }
        out.push_str(&prose[from..]);
        out
    }
}

/// A name rather than two words hyphenated: it has a file extension, a digit or an inner
/// capital ("co-pilot-instructions.md", "gpt-4", "Git-Hub"), not "well-known".
fn name_like(word: &str) -> bool {
    word.contains('.')
        || word.chars().any(|c| c.is_ascii_digit())
        || word.split('-').skip(1).any(|part| part.starts_with(|c: char| c.is_ascii_uppercase()))
}

/// The spellings with one or more of the hyphens taken out, fewest taken out first.
fn joinings(word: &str) -> Vec<String> {
    let parts: Vec<&str> = word.split('-').collect();
    let gaps = parts.len() - 1;
    let mut masks: Vec<u32> = (1..(1u32 << gaps)).collect();
    masks.sort_by_key(|m| m.count_ones());
    masks
        .into_iter()
        .map(|mask| {
            let mut s = parts[0].to_string();
            for (i, part) in parts[1..].iter().enumerate() {
                if mask & (1 << i) == 0 {
                    s.push('-');
                }
                s.push_str(part);
            }
            s
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use autodream_core::sessions::TurnKind;

    fn session(agent: &str) -> Vec<Turn> {
        let turn = |role, text: &str, kind| Turn {
            session: "s".into(),
            time: None,
            role,
            speaker: None,
            text: text.into(),
            kind,
            line: 1,
        };
        vec![
            turn(
                Role::User,
                "I only want to keep MSI X; point co-pilot-instructions.md to agent.md",
                TurnKind::Conversation,
            ),
            turn(Role::Assistant, agent, TurnKind::Conversation),
        ]
    }

    #[test]
    fn a_dictated_name_takes_the_sessions_spelling() {
        let s = session("I read .github/copilot-instructions.md and kept the MSIX packages.");
        let spelling = SessionSpelling::new(&s);
        assert_eq!(
            spelling.respell(
                "I only want to keep MSI X as of now. Point the co-pilot-instructions.md to AGENTS.md."
            ),
            "I only want to keep MSIX as of now. Point the copilot-instructions.md to AGENTS.md."
        );
    }

    #[test]
    fn words_the_session_does_not_spell_joined_stay_as_said() {
        // The session never writes the joined name: nothing to go by.
        let s = session("I kept the MSI packages and read the instructions file.");
        let spelling = SessionSpelling::new(&s);
        let said = "Keep MSI X. Point co-pilot-instructions.md to agent.md. Use a well-known port.";
        assert_eq!(spelling.respell(said), said);
        // Only the name said is respelled, not a longer word that starts the same way.
        let s = session("The MSIX package is built by build.ps1.");
        let spelling = SessionSpelling::new(&s);
        assert_eq!(spelling.respell("Keep MSI X, drop MSI XL."), "Keep MSIX, drop MSI XL.");
        // Ordinary hyphenated words and word pairs are never joined, even when the code joins them.
        let s = session("fn setup() {} struct ClaudeCode; let wellknown = 1; const SETUP = 2;");
        let spelling = SessionSpelling::new(&s);
        let said = "Set up the well-known Claude Code hooks.";
        assert_eq!(spelling.respell(said), said);
    }

    #[test]
    fn a_name_the_session_spells_as_the_user_did_stays() {
        let s = session("Both pre-commit and precommit appear; docs/pre-commit-4.md too.");
        let spelling = SessionSpelling::new(&s);
        assert_eq!(spelling.respell("Run pre-commit-4.md checks."), "Run pre-commit-4.md checks.");
    }
}
