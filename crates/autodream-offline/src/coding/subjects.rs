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
        r"(?i)\b(?:tests?|testing|specs?|rspec|pest|phpunit|pytest|jest|vitest|mocha|junit|turbine|detox|playwright|cypress|e2e|table-driven|golden|coverage|fixtures?|mocks?|t\.run|unit tests?|integration tests?|visual (?:tests?|regression)|snapshots|snapshot (?:tests?|testing|files?)|holdout)\b|测试|用例|单测|联调",
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

/// The subject file of a kept sentence.
pub fn subject_of(text: &str, kind: Kind) -> Subject {
    match kind {
        Kind::Person => return PEOPLE,
        Kind::Date => return DATES,
        Kind::User => return USER,
        _ => {}
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
    // "an MCP server based on the pup CLI", "the language server": a server the project is or
    // runs on a laptop is software, not a place it is deployed to.
    static SOFTWARE_SERVER: LazyLock<Regex> =
        LazyLock::new(|| crate::text::re(r"(?i)\b(?:mcp|language|lsp|local|mock|stub) servers?\b"));
    // "You can check everything on the server", "check anything fancy against that": to check
    // is to look, not a CI check.
    static TO_CHECK: LazyLock<Regex> = LazyLock::new(|| {
        crate::text::re(
            r"(?i)\b(?:can|could|to|please|will|would|should|must|you|we|i|and|then|also|first|always|never|just|double-?)[ -]check\b",
        )
    });
    // "We should not display \"AGENTS.md\" for Copilot": a quoted string is a name shown or
    // said, not a word of the fact's subject.
    static QUOTED: LazyLock<Regex> = LazyLock::new(|| crate::text::re(r#""[^"\n]{1,60}"|“[^”\n]{1,60}”"#));
    // "installs hooks using the wrapper script", "the git hooks": a tool's hooks, not the
    // code's; "PR-AUC", "ROC-AUC": one name, whose first part is no pull request.
    static NOT_THE_WORD: LazyLock<Regex> = LazyLock::new(|| {
        crate::text::re(
            r"(?i)\b(?:git|claude(?: code)?|pre-?commit|post-?commit|pre-?push|commit|agent|lifecycle|stop|session|husky|lefthook) hooks?\b|\binstall(?:s|ed|ing)? (?:the |our |its )?hooks?\b|\b\w+-(?-i:[A-Z]{2,})\b",
        )
    });
    let text = &*NOT_THE_WORD.replace_all(text, "");
    let text = &*QUOTED.replace_all(text, "");
    let text = &*SOFTWARE_SERVER.replace_all(text, "");
    let text = &*TO_CHECK.replace_all(text, "");
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
        assert_eq!(
            subject_of("Use pnpm for installs, scripts, everything.", Kind::Preference).slug,
            "package-manager"
        );
        assert_eq!(subject_of("Specs live in spec/, we use RSpec.", Kind::Correction).slug, "testing");
        assert_eq!(
            subject_of("CI is GitHub Actions now, workflow is .github/workflows/ci.yml.", Kind::Update).slug,
            "ci"
        );
        assert_eq!(subject_of("Priya is the PM for billing.", Kind::Person).slug, "people");
        // "Actions" alone are things to do; GitHub's are CI.
        assert_eq!(
            subject_of(
                "Postmortem drafted; open actions: retries must reuse the idempotency key.",
                Kind::Fact
            )
            .slug,
            "references"
        );
        assert_eq!(subject_of("The release runs in GitHub Actions.", Kind::Fact).slug, "ci");
        assert_eq!(
            subject_of("The runbook is docs/runbooks/rebalance-storm.md.", Kind::Reference).slug,
            "references"
        );
        assert_eq!(subject_of("The service answers on 8081.", Kind::Fact).slug, "project");
        // A server the project is, or runs locally, is no deploy target; the staging one is.
        assert_eq!(
            subject_of("Use /mcp-builder to build an MCP server based on the pup CLI", Kind::Preference).slug,
            "project"
        );
        assert_eq!(subject_of("SSH into the staging server to read the logs.", Kind::Fact).slug, "deploys");
        // To check is to look, not a CI check; a CI check and a CI runner are CI.
        assert_eq!(
            subject_of("You can check everything on the server yourself, you have the ssh keys", Kind::Fact)
                .slug,
            "deploys"
        );
        assert_eq!(subject_of("The release needs a green lint check", Kind::Fact).slug, "ci");
        assert_eq!(subject_of("We can solve that using GitHub runners on PR's", Kind::Fact).slug, "ci");
        assert_eq!(subject_of("Flash with `west flash --runner jlink`", Kind::Preference).slug, "project");
        // Where the code is hosted says nothing of git workflow; what is shown to users is no
        // snapshot test.
        assert_eq!(
            subject_of("Do not wrap long lines in the markdown, GitHub renders them as newlines", Kind::Fact)
                .slug,
            "project"
        );
        assert_eq!(
            subject_of("Full schema should not be updated ever, it is a point in time snapshot", Kind::Fact)
                .slug,
            "project"
        );
        assert_eq!(
            subject_of("Update the snapshot tests with `cargo insta review`", Kind::Fact).slug,
            "testing"
        );
        // A tool whose name is a word counts when written as a name.
        assert_eq!(
            subject_of("There's no reason to have the web render anything differently", Kind::Fact).slug,
            "project"
        );
        assert_eq!(subject_of("The API is hosted on Render, region Frankfurt", Kind::Fact).slug, "deploys");
        assert_eq!(subject_of("We're moving forward with rust", Kind::Decision).slug, "stack");
        // A tool's hooks are no code convention; a metric named with a dash is no pull request.
        assert_eq!(
            subject_of("Entire enable now installs hooks using the wrapper script by default", Kind::Fact)
                .slug,
            "project"
        );
        assert_eq!(subject_of("Custom hooks are named useSomething", Kind::Preference).slug, "conventions");
        assert_eq!(subject_of("Headline metric is PR-AUC, always", Kind::Preference).slug, "project");
        assert_eq!(subject_of("Every PR needs two approvals", Kind::Preference).slug, "git-workflow");
        // To squash is git's when it is done to commits, a branch or a merge; squashing bugs is
        // the game's.
        for git in [
            "We always squash.",
            "Squash-merge every PR, never rebase-merge",
            "Squash the fixup commits before review",
            "Squash them into one before merging",
        ] {
            assert_eq!(subject_of(git, Kind::Preference).slug, "git-workflow", "{git}");
        }
        assert_eq!(
            subject_of("In the game all the user does is squash bugs and pick up lifepoints", Kind::Fact)
                .slug,
            "project"
        );
        // The tools a fact names say its subject when its words do not.
        assert_eq!(
            subject_of(
                "Plain C99 + raylib 5, single Makefile, and we ship a web build via emscripten.",
                Kind::Preference
            )
            .slug,
            "stack"
        );
    }
}
