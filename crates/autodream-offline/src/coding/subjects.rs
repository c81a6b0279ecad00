//! Topics: which file a fact belongs in, named after its subject.
//!
//! A developer's memory is read by subject: "how do we test here?", "who approves this?",
//! "where do deploys go?". Each subject is one file (`testing.md`, `people.md`, `ci.md`…)
//! with a title for the index. A fact goes to the subject whose words it uses most; people
//! and dates go to their own files whatever else they mention, since "who" and "when" are
//! asked on their own.

use std::sync::LazyLock;

use regex::Regex;

use autodream_core::memdir::topic::MemoryType;

use super::kinds::Kind;

/// One subject file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subject {
    pub slug: &'static str,
    pub title: &'static str,
    pub kind: MemoryType,
    /// What the file holds, for its front matter description.
    pub about: &'static str,
}

pub const PEOPLE: Subject = Subject {
    slug: "people",
    title: "People and owners",
    kind: MemoryType::Project,
    about: "who owns, reviews and approves what",
};
pub const DATES: Subject = Subject {
    slug: "dates",
    title: "Dates and deadlines",
    kind: MemoryType::Project,
    about: "releases, freezes and deadlines ahead",
};
pub const USER: Subject = Subject {
    slug: "user",
    title: "About the user",
    kind: MemoryType::User,
    about: "who the user is and how they work",
};
pub const PROJECT: Subject = Subject {
    slug: "project",
    title: "Project facts",
    kind: MemoryType::Project,
    about: "facts about the project",
};

/// Subjects recognised by their words, in the order that breaks ties.
pub const TESTING: Subject = Subject {
    slug: "testing",
    title: "Testing",
    kind: MemoryType::Feedback,
    about: "how tests are written and run",
};

const SUBJECTS: &[(Subject, &str)] = &[
    (
        Subject {
            slug: "package-manager",
            title: "Package manager",
            kind: MemoryType::Feedback,
            about: "how dependencies are installed and managed",
        },
        r"(?i)\b(?:npm|npx|yarn|pnpm|bun|poetry|uv|pip|pipenv|conda|cargo add|bundler?|composer|go mod|maven|mvnw?|gradle|sbt|fvm|dependenc(?:y|ies)|deps|lockfile|yarn\.lock|package\.json|libs\.versions\.toml|versions? catalog)\b|装包|依赖",
    ),
    (
        Subject {
            slug: "ci",
            title: "CI",
            kind: MemoryType::Project,
            about: "the CI system, its jobs and checks",
        },
        r"(?i)\b(?:ci|jenkins|github actions|gitlab ci|circleci|buildkite|travis|workflows?|pipelines?|sonar\w*|quality gate|checks?|(?:github|gitlab|actions|self-hosted|ci|build) runners?|chromatic|(?:github |gh )actions|actions (?:runners?|workflows?|tab))\b|流水线",
    ),
    (
        TESTING,
        r"(?i)\b(?:tests?|testing|specs?|rspec|pest|phpunit|pytest|jest|vitest|mocha|junit|turbine|detox|playwright|cypress|e2e|table-driven|golden|coverage|fixtures?|mocks?|assertions?|asserts?|expectations|t\.run|unit tests?|integration tests?|visual (?:tests?|regression)|snapshots|snapshot (?:tests?|testing|files?)|holdout)\b|测试|用例|单测|联调",
    ),
    (
        Subject {
            slug: "git-workflow",
            title: "Git workflow",
            kind: MemoryType::Feedback,
            about: "branches, commits, merges and pull requests",
        },
        r"(?i)\b(?:rebase|merge[sd]?|merging|branch(?:es)?|commits?|push(?:es|ed)?|force-push|pull requests?|prs?|cherry-pick|trunk|main branch|revert commit|git|back to main|pull (?:in )?(?:the )?latest|pull main)\b|\bsquash(?:ed|es|ing)?(?:$|[.,;:!)]|[- ](?:and[- ])?merg|\s+(?:them|it|everything|into|before|on merge|when)\b|\s+(?:(?:the|all|our|my|your|those|these|\d+)\s+)?(?:\w+\s+)?(?:commits?|history|branch(?:es)?|prs?|pull requests?|changes|fixups?)\b)|分支|合并|提交",
    ),
    (
        Subject {
            slug: "deploys",
            title: "Deploys and environments",
            kind: MemoryType::Project,
            about: "environments, deploys and releases",
        },
        r"(?i)\b(?:deploy\w*|staging|prod|production|rollouts?|heroku|fly(?:\.io)?|forge|vercel|netlify|kubernetes|k8s|kubectl|helm|argo ?cd|terraform|atlantis|spacelift|firebase deploy|environments?|clusters?|namespaces?|testflight|fastlane|play console|app store|release candidate|s3 bucket|buckets?|servers?|hosting|hosted)\b|环境|生产|部署|集群|命名空间|上线窗口|变更窗口|窗口",
    ),
    (
        Subject {
            slug: "conventions",
            title: "Code conventions",
            kind: MemoryType::Feedback,
            about: "how code, commits and branches are written",
        },
        r"(?i)\b(?:naming|named|names?|commit messages?|branch(?:es)? names?|branch names|style|format(?:ting)?|lint\w*|clippy|credo|conventions?|indent\w*|tabs|spaces|imports?|functions?|components?|hooks?|variables?|pure|typ(?:ed|ing)|comments?|prefix(?:es)?|imperative mood|changesets?|exceptions|allocation|malloc|spelling|british|american english|wording|em dash(?:es)?|tone)\b|命名|分支名|规范|格式|函数|组件|注解",
    ),
    (
        Subject {
            slug: "stack",
            title: "Stack and versions",
            kind: MemoryType::Project,
            about: "languages, frameworks, versions and infrastructure",
        },
        r"(?i)\b(?:msrv|rust-version|java \d+|go \d|node \d+|python \d|ios \d+|android|swift|kotlin|flutter|sdk|toolchain|versions?|framework|orm|database|db|sqlite|postgres\w*|mysql|clickhouse|redis|kafka|snowflake|warehouse|zephyr|nrf\w*|rev [a-z]|mlflow|wandb|prisma|typeorm|django|rails|laravel|nestjs|react|vue|svelte|riverpod|decimal|float64|int64|bf16|fp16|schema registry|topics?|orms?)\b|版本|数据库|框架",
    ),
    (
        Subject {
            slug: "references",
            title: "Where things live",
            kind: MemoryType::Reference,
            about: "documents, dashboards and where things live",
        },
        r"(?i)https?://|\b(?:runbooks?|dashboards?|wiki|docs?|documentation|figma|notion|confluence|postmortem|readme|playbook|channel|lives? in|is in|are in|located)\b|\S+\.md\b|文档|设计稿|复盘|地址",
    ),
];

static COMPILED: LazyLock<Vec<(Subject, Regex)>> =
    LazyLock::new(|| SUBJECTS.iter().map(|(s, p)| (*s, Regex::new(p).expect("valid regex"))).collect());

/// The subject a vocabulary category's values are facts of.
fn subject_of_category(category: &str) -> &'static str {
    match category {
        "ci system" => "ci",
        "package manager" | "runtime version manager" | "package registry" | "monorepo tool" => {
            "package-manager"
        }
        "test runner" | "end-to-end test tool" | "load testing" => "testing",
        "cloud"
        | "region"
        | "container orchestrator"
        | "container runtime"
        | "infrastructure as code"
        | "cdn"
        | "dns provider"
        | "hosting for static sites"
        | "object storage"
        | "service mesh"
        | "api gateway"
        | "secrets manager" => "deploys",
        "linter" | "formatter" | "type checker" | "english spelling" => "conventions",
        // "the rendering on GitHub", "GitHub Copilot instructions": where the code is hosted
        // is named in facts of every subject; branches and pull requests say git workflow.
        "code host" => "",
        "version control" => "git-workflow",
        "issue tracker" | "chat tool" | "documentation tool" => "references",
        _ => "stack",
    }
}

/// Every subject a fact can go to, for reading files back.
pub fn all() -> Vec<Subject> {
    let mut v = vec![PEOPLE, DATES, USER, PROJECT];
    v.extend(SUBJECTS.iter().map(|(s, _)| *s));
    v
}

/// Words that look like a subject's and are not, left out before a fact's subject words are
/// counted (one pass of their alternation).
const NOT_A_SUBJECT_PARTS: &[&str] = &[
    // "an MCP server based on the pup CLI", "the language server": a server the project is or
    // runs on a laptop is software, not a place it is deployed to.
    r"\b(?:mcp|language|lsp|local|mock|stub) servers?\b",
    // "You can check everything on the server", "check anything fancy against that": to check
    // is to look, not a CI check.
    r"\b(?:can|could|to|please|will|would|should|must|you|we|i|and|then|also|first|always|never|just|double-?)[ -]check\b",
    // "We should not display \"AGENTS.md\" for Copilot": a quoted string is a name shown or
    // said, not a word of the fact's subject.
    r#""[^"\n]{1,60}"|“[^”\n]{1,60}”"#,
    // "installs hooks using the wrapper script", "the git hooks": a tool's hooks, not the
    // code's.
    r"\b(?:git|claude(?: code)?|pre-?commit|post-?commit|pre-?push|commit|agent|lifecycle|stop|session|husky|lefthook) hooks?\b|\binstall(?:s|ed|ing)? (?:the |our |its )?hooks?\b",
    // "PR-AUC", "ROC-AUC": one name, whose first part is no pull request.
    r"\b\w+-(?-i:[A-Z]{2,})\b",
];
static NOT_A_SUBJECT: LazyLock<Regex> =
    LazyLock::new(|| crate::text::re(&format!("(?i){}", NOT_A_SUBJECT_PARTS.join("|"))));

/// The subject file of a kept sentence.
pub fn subject_of(text: &str, kind: Kind) -> Subject {
    match kind {
        Kind::Person => return PEOPLE,
        Kind::Date => return DATES,
        Kind::User => return USER,
        _ => {}
    }
    // "`docs/METADATA_EVOLUTION_PROTOCOL.md` -- formal rules for evolving schemas": a fact
    // that opens with a document says what the document holds, whatever it is about.
    if crate::text::opens_with_a_document(text) {
        return SUBJECTS[SUBJECTS.len() - 1].0;
    }
    // The tools and values the fact names count for the subject of their category
    // ("Plain C99 + raylib 5 …" names a language and a framework: the stack).
    // A tool whose name is also an English word ("Render", "Segment", "Linear") counts only
    // when written as a name: "have the web render anything", "the segment catalog" name none.
    // Languages are typed in lower case as often as not ("we're moving forward with rust").
    let vocabulary = &*super::vocabulary::VOCABULARY;
    let named: Vec<&'static str> = vocabulary
        .values_in(text)
        .into_iter()
        .map(|(category, name)| (vocabulary.categories[category].name.as_str(), name))
        .filter(|(category, name)| {
            *category == "programming language"
                || !crate::text::is_known_word(name)
                || written_as_a_name(text, name)
        })
        .map(|(category, _)| subject_of_category(category))
        .collect();
    let text = &*NOT_A_SUBJECT.replace_all(text, "");
    let mut best: Option<(usize, Subject)> = None;
    for (subject, re) in COMPILED.iter() {
        let hits = re.find_iter(text).count() + named.iter().filter(|s| **s == subject.slug).count();
        if hits > 0 && best.is_none_or(|(b, _)| hits > b) {
            best = Some((hits, *subject));
        }
    }
    match best {
        Some((_, s)) => s,
        None if kind == Kind::Reference => SUBJECTS[SUBJECTS.len() - 1].0,
        None => PROJECT,
    }
}

/// Does `text` write the word `name` capitalised somewhere?
fn written_as_a_name(text: &str, name: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric())
        .any(|w| w.eq_ignore_ascii_case(name) && w.starts_with(|c: char| c.is_uppercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_go_to_the_subject_they_talk_about() {
        let cases = [
            ("Use pnpm for installs, scripts, everything.", Kind::Preference, "package-manager"),
            ("Specs live in spec/, we use RSpec.", Kind::Correction, "testing"),
            ("CI is GitHub Actions now, workflow is .github/workflows/ci.yml.", Kind::Update, "ci"),
            ("Priya is the PM for billing.", Kind::Person, "people"),
            // "Actions" alone are things to do; GitHub's are CI.
            (
                "Postmortem drafted; open actions: retries must reuse the idempotency key.",
                Kind::Fact,
                "references",
            ),
            ("The release runs in GitHub Actions.", Kind::Fact, "ci"),
            ("The runbook is docs/runbooks/rebalance-storm.md.", Kind::Reference, "references"),
            ("Replace our expectations with literal multiline strings", Kind::Preference, "testing"),
            ("`docs/SCHEMA_EVOLUTION.md` -- formal rules for version bumps", Kind::Preference, "references"),
            ("The service answers on 8081.", Kind::Fact, "project"),
            // A server the project is, or runs locally, is no deploy target; the staging one is.
            ("Use /mcp-builder to build an MCP server based on the pup CLI", Kind::Preference, "project"),
            ("SSH into the staging server to read the logs.", Kind::Fact, "deploys"),
            // To check is to look, not a CI check; a CI check and a CI runner are CI.
            ("You can check everything on the server yourself, you have the ssh keys", Kind::Fact, "deploys"),
            ("The release needs a green lint check", Kind::Fact, "ci"),
            ("We can solve that using GitHub runners on PR's", Kind::Fact, "ci"),
            ("Flash with `west flash --runner jlink`", Kind::Preference, "project"),
            // Where the code is hosted says nothing of git workflow; what is shown to users is
            // no snapshot test.
            (
                "Do not wrap long lines in the markdown, GitHub renders them as newlines",
                Kind::Fact,
                "project",
            ),
            ("Full schema should not be updated ever, it is a point in time snapshot", Kind::Fact, "project"),
            ("Update the snapshot tests with `cargo insta review`", Kind::Fact, "testing"),
            // A tool whose name is a word counts when written as a name.
            ("There's no reason to have the web render anything differently", Kind::Fact, "project"),
            ("The API is hosted on Render, region Frankfurt", Kind::Fact, "deploys"),
            ("We're moving forward with rust", Kind::Decision, "stack"),
            // A tool's hooks are no code convention; a metric named with a dash is no pull
            // request.
            ("Entire enable now installs hooks using the wrapper script by default", Kind::Fact, "project"),
            ("Custom hooks are named useSomething", Kind::Preference, "conventions"),
            ("Headline metric is PR-AUC, always", Kind::Preference, "project"),
            ("Every PR needs two approvals", Kind::Preference, "git-workflow"),
            // To squash is git's when it is done to commits, a branch or a merge; squashing bugs
            // is the game's.
            ("We always squash.", Kind::Preference, "git-workflow"),
            ("Squash-merge every PR, never rebase-merge", Kind::Preference, "git-workflow"),
            ("Squash the fixup commits before review", Kind::Preference, "git-workflow"),
            ("Squash them into one before merging", Kind::Preference, "git-workflow"),
            ("In the game all the user does is squash bugs and pick up lifepoints", Kind::Fact, "project"),
            // The tools a fact names say its subject when its words do not.
            (
                "Plain C99 + raylib 5, single Makefile, and we ship a web build via emscripten.",
                Kind::Preference,
                "stack",
            ),
        ];
        for (fact, kind, slug) in cases {
            assert_eq!(subject_of(fact, kind).slug, slug, "{fact}");
        }
    }
}
