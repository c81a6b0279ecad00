//! The durable/one-off judgement on sentences written for the tests.

use super::*;

fn day() -> Date {
    Date::constant(2026, 3, 4)
}

fn kept(s: &str) -> Option<Kind> {
    match judge(s, day(), false) {
        Verdict::Keep(k) => Some(k.kind),
        Verdict::Drop(_) => None,
    }
}

#[test]
fn standing_rules_people_facts_and_dates_are_kept() {
    let cases = [
        ("Use yarn, not npm, the repo is on yarn.lock and npm makes a mess of it.", Kind::Preference),
        ("No, specs live in spec/, we use RSpec.", Kind::Correction),
        (
            "Priya is the PM for billing, and anything that touches pricing needs her sign-off on the PR.",
            Kind::Person,
        ),
        ("Dana is our tech lead and she reviews every pull request.", Kind::Person),
        ("The main branch is called trunk, not main.", Kind::Fact),
        ("Context: service listens on 8081, Prometheus metrics on 9102.", Kind::Fact),
        (
            "CI is Jenkins, job ingestd-pr, console at https://ci.example.internal/job/x if a build fails.",
            Kind::Reference,
        ),
        ("We switched the repo from yarn to pnpm on Friday.", Kind::Update),
        ("The Q1 code freeze is in two weeks (Wednesday the 18th).", Kind::Date),
        ("金额一律用 int64 存“分”，全项目禁止用 float64 表示金额。", Kind::Preference),
        ("王磊是前端负责人，所有合到 main 的 PR 都要他 review。", Kind::Person),
        ("Always use `bin/rails`, never bare `rails`, we rely on the binstubs.", Kind::Preference),
        ("We always need to run `make schema` after touching the proto files.", Kind::Preference),
        // Asked to be kept in mind, with the command that does it.
        ("yes. keep in mind, you need to run `test:env` to have the env locally", Kind::Fact),
        ("Bear in mind that the API is rate limited to 100 requests a minute.", Kind::Fact),
        // A way of working after the way it replaces is still a way of working.
        ("Instead of npm, use pnpm.", Kind::Update),
        // The same forms as a way of working.
        ("I want you to always use pnpm in this repo.", Kind::Preference),
        ("Always review migrations in this repo before merging.", Kind::Preference),
        ("Fix the login bug and always run the e2e suite before pushing.", Kind::Preference),
    ];
    for (s, kind) in cases {
        assert_eq!(kept(s), Some(kind), "{s}");
    }
}

#[test]
fn requests_questions_status_and_chatter_are_dropped() {
    for s in [
        "Add her as reviewer, handle is @priya-n.",
        "Pull main and rebase #812 onto it.",
        "Can you update the README and delete atlantis.yaml?",
        "webhooks.test.ts failed on CI twice today, can you see if it's flaky or real",
        "The reminders job blows up in the console.",
        "Thanks, that's enough.",
        "ok push it, I'll watch Jenkins",
        "Remove the sentence at the top of the README.",
        "Do not change the code yet.",
        "帮我看看退款回调的日志。",
        "你看下 internal/refund。",
        "I need release notes for everything merged since last Monday.",
        // Real sessions: a step of the plan, and the trouble of the moment.
        "We need to get back to main, and pull in latest.",
        "The diff as data has the issue if we now rebase the shadow branch since then the diff would be not correct anymore",
        // The user stepping away.
        "yesss. brb my dog needs a walk",
        "afk for an hour, the CI needs to finish first",
        "ok can we please log a @.learnings/README.md entry and also make sure to memorize the setup",
        // An aside cut out of a longer sentence.
        "(don't add too many, just the core issue(s)",
        // An order after the way it replaces, and a reminder for the task.
        "Instead of force installing, compare to the backup repo medgemma-hackathon-backup",
        "Remember to run `make lint` before you push.",
        "Keep in mind that this file is generated.",
        // An approval that goes on to the order; a touch to the work; a thing to be made that
        // always does something; where to look.
        "Yes create all the missing feature sub-pages.",
        "Use a little bit more color on the pages, like we use in the compare page.",
        "Create a test to always verify this is working.",
        "I want you to carefully review all agents.md/claude.md files in this repo.",
        "Fix this and make sure that all screens within vault always lock.",
        // A failure reported (the words inside its code span make no rule).
        "The ` (fail) @chkit/cli drift e2e > respects failOnDrift=false policy when drift exists [8498.92ms]` test fails",
        "The nightly build broke again",
    ] {
        assert_eq!(kept(s), None, "{s}");
    }
}

#[test]
fn secrets_and_personal_data_drop_the_sentence() {
    for s in [
        "For local testing against staging Kafka, the SASL password is tundra-Hx92-quill.",
        "admin 测试账号是 admin_qa，密码 Mall@2026test。",
        "wandb 的 key 是 a9f3c27d18e64b05c2f9e7a1d3b6c8f0e2a4b6c8，你帮我 login 一下。",
        "Also add the user's personal address dan.kowalski.1989@gmail.com as a test fixture.",
        "数据库密码是 hunter2-prod，别写进任何文件。",
    ] {
        assert_eq!(judge(s, day(), false), Verdict::Drop(Dropped::Secret), "{s}");
    }
    assert!(!holds_secret("On rev D the SHT40 moved to I2C address 0x45 on the nRF52840."));
}

#[test]
fn lead_ins_go_meaningful_labels_stay() {
    assert_eq!(
        without_lead("Heads up: we moved staging to Fly.io."),
        ("We moved staging to Fly.io.".into(), false)
    );
    assert_eq!(without_lead("No, specs live in spec/."), ("Specs live in spec/.".into(), true));
    assert!(without_lead("no we use pnpm here").1);
    assert!(without_lead("No no — never allocate on the audio thread.").1);
    assert!(without_lead("Nope - the tests live in spec/.").1);
    // "No one …", "no need …": the sentence's own first word, no reply to the agent.
    assert!(!without_lead("no one likes walking up to the items because the board is hard to navigate").1);
    assert!(!without_lead("No need to rebase, the bot squashes on merge.").1);
    // A word joined to the next by a hyphen is part of it, not a lead-in.
    assert_eq!(without_lead("Well-tested code is non-negotiable.").0, "Well-tested code is non-negotiable.");
    assert_eq!(without_lead("Right-click opens the context menu.").0, "Right-click opens the context menu.");
    assert_eq!(without_lead("Well - specs live in spec/.").0, "Specs live in spec/.");
    // The number of the question a reply answers goes; a number that counts stays.
    assert_eq!(without_lead("1 we're moving forward with rust").0, "We're moving forward with rust");
    assert_eq!(without_lead("3 replicas run in prod.").0, "3 replicas run in prod.");
    assert_eq!(without_lead("Ok- specs live in spec/.").0, "Specs live in spec/.");
    // "so" that begins a phrase ("so far", "so much") is no lead-in.
    assert_eq!(without_lead("okay so far we have a planet").0, "So far we have a planet");
    assert_eq!(without_lead("So much of the API is generated.").0, "So much of the API is generated.");
    assert_eq!(without_lead("okay so we use pnpm").0, "We use pnpm");
    assert_eq!(
        without_lead("Firmware rule: no malloc after init.").0,
        "Firmware rule: no malloc after init."
    );
    assert_eq!(
        without_lead("Agreed: replacing the PnP Modal SDK entirely.").0,
        "Agreed: replacing the PnP Modal SDK entirely."
    );
    // A tool written in lower case keeps its case; another first word is capitalised.
    assert_eq!(without_lead("dbt 1.9 prep: models migrated").0, "dbt 1.9 prep: models migrated");
    assert_eq!(without_lead("pnpm only, never npm").0, "pnpm only, never npm");
    assert_eq!(without_lead("specs live in spec/").0, "Specs live in spec/");
    // A label that names a tool is the subject of what follows it.
    assert_eq!(
        without_lead("CatBoost depth 8 lr 0.05: PR-AUC 0.413, chosen for the readout").0,
        "CatBoost depth 8 lr 0.05: PR-AUC 0.413, chosen for the readout"
    );
    assert_eq!(without_lead("另外李娜是支付网关的 owner。").0, "李娜是支付网关的 owner。");
    assert_eq!(
        without_lead(
            "The first part is not correct, for manual commits we use git hooks to add the trailer."
        ),
        ("For manual commits we use git hooks to add the trailer.".into(), true)
    );
    assert_eq!(
        without_lead("This is correct behaviour for new files and we keep it.").0,
        "This is correct behaviour for new files and we keep it."
    );
    // A request of the moment before a rule goes; before anything else it stays.
    assert_eq!(
        without_lead("Let's do the one here as well, we always want to be passed a valid checkpointId.").0,
        "We always want to be passed a valid checkpointId."
    );
    assert_eq!(
        without_lead("Let's roll back, they don't need to exist.").0,
        "Let's roll back, they don't need to exist."
    );
}

#[test]
fn orders_in_the_forms_of_a_rule_are_orders() {
    for said in [
        "Ok can we please log a README entry and also make sure to memorize the setup and ensure this never repeats again.",
        "Now use the writing clearly skills on this document.",
        "Ibvestiaget how we can solve this: https://github.com/acme/app/issues/5992",
        "Validate that whatever is in the old structure might not be relevant in the memory instead of here.",
        "👍 also add `uv run` to the README quickstart instead of poetry shell.",
        "Nah let's roll back, they don't really need to exist in the future state.",
        "Reflect why you didnt and how we can make you in the future.",
    ] {
        assert_eq!(kept(said), None, "{said}");
    }
    // The same words as a rule stay rules.
    for said in [
        "Always log a README entry so that this never repeats again.",
        "Use the writing clearly skill for every public text.",
        "Never push migrations by hand, the pipeline runs them.",
    ] {
        assert!(kept(said).is_some(), "{said}");
    }
}

#[test]
fn a_way_set_for_a_kind_of_code_over_all_of_it_is_how_it_is_written() {
    for said in [
        "Let's instead replace our expectations with literal multiline strings, nice and obvious.",
        "Let's use errors.Is rather than string matching for all error checks.",
        "Instead, i'd like all those assertions replaced with a single comparison to the result.",
    ] {
        assert_eq!(kept(said), Some(Kind::Preference), "{said}");
    }
    // One thing changed, or who does the work, is the task at hand.
    for said in [
        "ok, let's rename to \"steps\" instead.",
        "Let's replace our expectations with literal strings.",
        "review the plans with Opus 5 instead",
        "Let's instead rename that function to parseAll.",
        "I'd like to rename it to steps instead.",
    ] {
        assert_eq!(kept(said), None, "{said}");
    }
}

#[test]
fn the_future_as_a_scope_and_as_a_thing() {
    // "in the future" sets a rule; "the future state" is a thing being talked about.
    assert!(kept("In the future, run the linter before you push.").is_some());
    assert!(kept("Please write the changelog entry first in the future.").is_some());
    assert_eq!(kept("Let's roll back, they don't really need to exist in the future state."), None);
}

#[test]
fn a_clause_of_the_moment_goes_with_the_state_of_the_moment() {
    // The first clause is the state of the work, the second a step of the plan: no clause is
    // left to keep.
    let said = "The docs are already converted, and then we look at 50 commits in entire/sessions.";
    assert!(matches!(judge(said, day(), false), Verdict::Drop(_)), "{said}");
    // A lasting clause beside the state of the moment stays, alone.
    match judge("The docs are already converted; we deploy the site from the gh-pages branch.", day(), false)
    {
        Verdict::Keep(k) => {
            assert!(k.text.contains("gh-pages") && !k.text.contains("converted"), "{}", k.text)
        }
        Verdict::Drop(why) => panic!("dropped: {why:?}"),
    }
    // The speaker's day in Chinese, whatever rule words it has; a rule said today stays.
    for day_of in
        ["今天实验室停电，板子都用不了，只能看代码。", "我下午要去医院拿体检报告，所以上午把看板的拖拽改完。"]
    {
        assert_eq!(judge(day_of, day(), false), Verdict::Drop(Dropped::Status), "{day_of}");
    }
    assert!(kept("今天起所有接口都用 v2 的鉴权。").is_some());
    // A reminder of one way over another is a way of working; of the work in hand, an order.
    match judge("dont forget to branch off main and not the current branch.", day(), false) {
        Verdict::Keep(k) => assert_eq!(
            (k.kind, k.text.as_str()),
            (Kind::Preference, "Branch off main and not the current branch.")
        ),
        Verdict::Drop(why) => panic!("dropped as {why:?}"),
    }
    assert_eq!(kept("Don't forget to put it in utils, not in main."), None);
    assert_eq!(kept("Don't forget to push the branch."), None);
    // Who to go to with a problem is no problem report.
    match judge("接口设计有问题找孙悦，她是架构师。", day(), false) {
        Verdict::Keep(k) => assert_eq!(k.kind, Kind::Person),
        Verdict::Drop(why) => panic!("dropped as {why:?}"),
    }
}

#[test]
fn a_question_by_its_word_order_whatever_its_last_mark() {
    for asked in [
        "Should that be under policy or somewhere else",
        "Shouldn't url be remote",
        "Is our Phoenix work with feature parity currently still valid.",
        "How do we deploy staging.",
        // A standing form's words, asked: "you have access to …" is a fact, asking it none.
        "do you have access to past conversations about it",
        "Don't forget to branch off main and not the current branch?",
    ] {
        assert_eq!(judge(asked, day(), false), Verdict::Drop(Dropped::Question), "{asked}");
    }
    for told in [
        "you have access to the ssh keys, check the logs yourself",
        "dont forget to branch off main and not the current branch",
    ] {
        assert!(kept(told).is_some(), "{told}");
    }
    // An auxiliary before a verb, "not" or an adverb is no question.
    for rule in
        ["Do not push to main.", "Must use pnpm in this repo.", "Can always rebase onto main in this repo."]
    {
        assert!(kept(rule).is_some(), "{rule}");
    }
}

#[test]
fn an_order_by_any_verb_and_a_noun_subject_that_looks_like_one() {
    for order in [
        "Spawn worker to use ai-research-wiki as overall research.",
        "Ensure the ingest package design has an issue created in the beads repo.",
        "Continue, network should be better now.",
    ] {
        assert_eq!(judge(order, day(), false), Verdict::Drop(Dropped::Request), "{order}");
    }
    // A verb that is also a noun, with its own verb after it: a statement.
    for fact in ["Test files live in spec/models.", "Build times are around 12 minutes on CI."] {
        assert_ne!(judge(fact, day(), false), Verdict::Drop(Dropped::Request), "{fact}");
    }
    // "Wait, …" gets attention; the statement after it is judged.
    assert!(kept("Oh wait, we name files in snake_case in this repo.").is_some());
}

#[test]
fn a_script_the_rules_cannot_read_is_never_written() {
    let said = "Создай мне промт примерно такой AGENT_TEAM_PHASE8_PROMPT.md для всех задач https://example.com/en/blog/agent-teams-setup-guide";
    assert_eq!(judge(said, day(), false), Verdict::Drop(Dropped::NotDurable));
    // Chinese is read, and so is English around a Cyrillic name.
    assert!(kept("我们统一用 pnpm，不要再用 npm 了。").is_some());
    assert!(kept("We always deploy the Пульс dashboard with `make deploy` in this repo.").is_some());
}

#[test]
fn what_the_user_has_not_and_what_they_come_from() {
    for said in ["I dont have anything to add", "No, I don't have such, let it be a surprise"] {
        assert!(matches!(judge(said, day(), false), Verdict::Drop(_)), "{said}");
    }
    match judge(
        "Quick context: I'm coming from React Native, so please explain the actor model.",
        day(),
        false,
    ) {
        Verdict::Keep(k) => assert_eq!(k.text, "The user is coming from React Native."),
        Verdict::Drop(why) => panic!("dropped: {why:?}"),
    }
    // A reason that points back, then its consequence: the consequence is kept.
    match judge("That needs 1.80, so we're bumping MSRV to 1.80 (was 1.74).", day(), false) {
        Verdict::Keep(k) => assert!(k.text.starts_with("We're bumping MSRV to 1.80"), "{}", k.text),
        Verdict::Drop(why) => panic!("dropped: {why:?}"),
    }
    assert!(kept("We're using cargo-dist.").is_some());
}

#[test]
fn a_restriction_without_a_verb_and_a_style_label_are_rules() {
    for rule in [
        "Ah no — Tailwind only, no CSS modules.",
        "No malloc.",
        "Constructor injection only please — no @Autowired on fields anywhere.",
        "House style before you write anything: headings in sentence case, no 'simply' or 'just'.",
    ] {
        match judge(rule, day(), false) {
            Verdict::Keep(k) => assert_eq!(k.kind, Kind::Preference, "{rule}"),
            Verdict::Drop(why) => panic!("{rule}: dropped as {why:?}"),
        }
    }
    // "Bug report only": which of the offered forms to write now, in plain words.
    for chatter in [
        "No worries, take your time.",
        "No problem.",
        "I only want to keep MSIX as of now.",
        "Bug report only.",
    ] {
        assert!(
            !matches!(judge(chatter, day(), false), Verdict::Keep(Kept { kind: Kind::Preference, .. })),
            "{chatter}"
        );
    }
    // Who a kind of work goes through, with a dash-enclosed aside.
    match judge(
        "Metric definitions — net revenue etc — go through Hannah, she's the analytics lead.",
        day(),
        false,
    ) {
        Verdict::Keep(k) => assert_eq!(k.kind, Kind::Person),
        Verdict::Drop(why) => panic!("dropped as {why:?}"),
    }
}

#[test]
fn the_colon_of_a_time_is_no_label_and_a_wide_colon_is_read_whole() {
    match judge(
        "Runs daily at 02:30 UTC on job clusters with the etl-small policy in this repo.",
        day(),
        false,
    ) {
        Verdict::Keep(k) => assert!(k.text.starts_with("Runs daily at 02:30"), "{}", k.text),
        Verdict::Drop(why) => panic!("dropped as {why:?}"),
    }
    assert!(
        kept("联调环境换了，test2 已经下线，以后都用 test3：https://api-test3.mall.internal 。").is_some()
    );
    // Two colons separate a path; they end no label.
    assert_eq!(
        without_lead("That std::vector in processBlock allocates every block.").0,
        "That std::vector in processBlock allocates every block."
    );
    // The colon of an address ends no label, wherever the address stands.
    assert_eq!(
        without_lead("also for https://github.com/o/r/issues/1140 validate is not the right subcommand").0,
        "For https://github.com/o/r/issues/1140 validate is not the right subcommand"
    );
    // What comes before the colon ends on a verb whose object follows it: the sentence's start.
    assert_eq!(
        without_lead("When reporting back, include: the branch; the worktree path; the status").0,
        "When reporting back, include: the branch; the worktree path; the status"
    );
    assert_eq!(
        without_lead("Our stack is: Rust, Postgres and Redis").0,
        "Our stack is: Rust, Postgres and Redis"
    );
    assert_eq!(without_lead("Context: the API runs on port 8080").0, "The API runs on port 8080");
}

#[test]
fn a_doubt_typed_in_haste_and_a_purpose_are_no_fact_and_no_change() {
    // "tink" for "think": a doubt the user asks the agent to check.
    assert_eq!(
        judge("i don't tink agentv has any use of the remote name, can you confirm.", day(), false),
        Verdict::Drop(Dropped::NotDurable)
    );
    // "from … to" before a verb gives a purpose, not a move from one value to another.
    assert!(!says_a_change("Any examples from other eval frameworks to understand the problem"));
    assert!(says_a_change("We went from yarn to pnpm last week"));
    assert!(says_a_change("Node goes from 18 to 20 in the next release"));
    assert!(says_a_change("The pool goes from 16 to 18 nodes to be safe"));
    assert!(says_a_change("We moved from Heroku to render"));
    assert!(says_a_change("Installs go from `npm` to `pnpm` in CI"));
    assert!(!says_a_change("Pull the rows from the API to build the report."));
    // A purpose cut from the clause it serves stands for nothing; "just so you know" leads one.
    assert_eq!(judge("just so we can have more options", day(), false), Verdict::Drop(Dropped::NotDurable));
    assert!(matches!(judge("Just so you know, we deploy with fly.", day(), false), Verdict::Keep(_)));
}

#[test]
fn a_word_of_a_list_before_a_comma_names_no_person() {
    assert!(!people::names_a_person(
        "When reporting back, include: Active handles, branches, and worktree paths"
    ));
    assert!(people::names_a_person("Priya handles billing and the on-call rota"));
    assert!(people::names_a_person("Chen reviews, as usual for API changes"));
}

#[test]
fn an_order_to_write_a_rule_down_leaves_the_rule() {
    assert_eq!(
        without_lead(
            "I want to create instructions that state that it is not allowed to write elaborate comments."
        )
        .0,
        "It is not allowed to write elaborate comments."
    );
    assert_eq!(
        without_lead("Mention that github also create \".github/instructions\" and \".github/skills\"").0,
        "Github also create \".github/instructions\" and \".github/skills\""
    );
}

#[test]
fn next_time_said_to_the_agent_is_a_rule_for_every_time() {
    for rule in [
        "Next time you made changes to the code, let me commit.",
        "Next time, run the linter before you commit.",
        "And next time you touch the schema, add a migration.",
    ] {
        assert_eq!(kept(rule), Some(Kind::Preference), "{rule}");
    }
    // The speaker's own next time, a meeting, and "for next time" inside an order are not.
    for other in [
        "Next time I will bring the charger.",
        "Next time we meet, let's discuss the roadmap.",
        "Bump versionCode for next time, and write a PILOT.md checklist for the depot.",
    ] {
        assert_eq!(kept(other), None, "{other}");
    }
}

#[test]
fn where_the_rule_lives_is_said_of_the_rule_by_its_article() {
    for home in [
        "I want the instructions to live in Agents.md, not a skill, because it applies everywhere.",
        "These rules belong in CONTRIBUTING.md.",
        "OK, the guideline should be kept in docs/style.md.",
        "We want those rules to go into AGENTS.md.",
    ] {
        assert!(names_the_rules_home(home), "{home}");
    }
    for other in [
        // A rule of its own, or a rule of another thing.
        "Release rules live in RELEASING.md.",
        "The instructions say to run the linter first.",
        "The rules engine lives in src/rules.",
        "Put a README into the e2e dir.",
    ] {
        assert!(!names_the_rules_home(other), "{other}");
    }
}

#[test]
fn a_bare_ok_and_a_doubled_capital_are_not_part_of_the_fact() {
    assert_eq!(
        without_lead("Ok the client id is 1645-abc.apps.example.com").0,
        "The client id is 1645-abc.apps.example.com"
    );
    assert_eq!(without_lead("MMy original plan was a queue").0, "My original plan was a queue");
    // A word that is not a function word after its capital, and "OK" as a name, stay.
    assert_eq!(without_lead("OK button should be blue").0, "OK button should be blue");
    assert_eq!(without_lead("CCache is slow on CI").0, "CCache is slow on CI");
}

#[test]
fn what_a_tool_does_or_cannot_do_is_a_fact() {
    let day = Date::constant(2026, 3, 2);
    for fact in [
        "I want to provide support for streaming in NuShell, but the problem is that NuShell does not support it.",
        "GitHub also creates .github/instructions and .github/skills.",
        "pnpm ignores the npmrc in subfolders.",
    ] {
        assert!(matches!(judge(fact, day, false), Verdict::Keep(Kept { kind: Kind::Fact, .. })), "{fact}");
    }
    // Of the moment, an order, a question, a guess, or no tool the vocabulary knows.
    for not in [
        "Docker doesn't support this yet.",
        "Make sure Docker creates the volume.",
        "Does pnpm support workspaces?",
        "I think Jest doesn't handle ESM well.",
        "The parser reads the config twice.",
    ] {
        assert!(!matches!(judge(not, day, false), Verdict::Keep(Kept { kind: Kind::Fact, .. })), "{not}");
    }
}

#[test]
fn a_way_set_aside_for_a_named_one_is_a_decision() {
    let day = Date::constant(2026, 3, 2);
    for decision in [
        "docker isn't relevant, we can solve that using GitHub Runners on PR's.",
        "Redis isn't needed, we can do that with Postgres advisory locks.",
    ] {
        assert!(
            matches!(judge(decision, day, false), Verdict::Keep(Kept { kind: Kind::Decision, .. })),
            "{decision}"
        );
    }
    // Neither side named: nothing a later session could act on.
    assert!(!matches!(
        judge("That isn't needed, we can do it with the other thing.", day, false),
        Verdict::Keep(Kept { kind: Kind::Decision, .. })
    ));
}

#[test]
fn moving_forward_with_a_way_is_a_decision_and_an_answers_number_goes() {
    let day = Date::constant(2026, 4, 17);
    // "1" numbered the agent's question; "moving forward with" chose the way.
    match judge("1 we're moving forward with rust", day, false) {
        Verdict::Keep(k) => {
            assert_eq!(k.kind, Kind::Decision);
            assert_eq!(k.text, "We're moving forward with rust");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_user_saying_who_they_are_is_told_of_them() {
    let day = Date::constant(2026, 3, 2);
    let user = |s: &str| match judge(s, day, false) {
        Verdict::Keep(Kept { kind: Kind::User, text, .. }) => Some(text),
        _ => None,
    };
    assert_eq!(
        user("Hi — context: I'm a backend dev (mostly Go), Flutter is new-ish for me.").as_deref(),
        Some("The user is a backend dev (mostly Go), Flutter is new-ish for them.")
    );
    assert_eq!(
        user("I did 10 years of OpenGL/GLSL but this is my first Rust project.").as_deref(),
        Some("The user did 10 years of OpenGL/GLSL but this is their first Rust project.")
    );
    assert_eq!(
        user("先说明一下，我是做 Java 后端的，前端不太熟。").as_deref(),
        Some("用户是做 Java 后端的，前端不太熟。")
    );
    // Who to go to, said with a pronoun after the name, is a person fact, not a problem.
    assert!(matches!(
        judge("数据标注是陈晨在负责，数据有问题直接找她。", day, false),
        Verdict::Keep(Kept { kind: Kind::Person, .. })
    ));
    // A preference is told of the user to its end.
    assert_eq!(
        in_third_person("I prefer short commit messages on my branches."),
        "The user prefers short commit messages on their branches."
    );
    // The speaker's plan for the day is none of these.
    assert_eq!(user("I did the migration yesterday."), None);
}

#[test]
fn a_greeting_and_a_rule_label_lead_the_way() {
    let day = Date::constant(2026, 3, 2);
    // A greeting is not part of what the user says of themselves.
    assert!(matches!(
        judge("hiii ok so I'm an artist, not a programmer — please keep explanations simple.", day, false),
        Verdict::Keep(Kept { kind: Kind::User, .. })
    ));
    assert_eq!(without_lead("Hi～ 这个 app 是 Jetpack Compose。").0, "这个 app 是 Jetpack Compose。");
    // A rule the user labels as one is said to last.
    match judge("Rule for this client: never deploy on Fridays, it's Colm's busiest day.", day, false) {
        Verdict::Keep(k) => assert!(k.standing, "{k:?}"),
        other => panic!("{other:?}"),
    }
    // A want with its "I" left out is an order for the work.
    assert_eq!(
        judge("Hey — need a date-range picker on the KPI row that refetches all tiles.", day, false),
        Verdict::Drop(Dropped::Request)
    );
}

#[test]
fn a_daily_time_in_chinese_is_a_standing_schedule() {
    let day = Date::constant(2026, 3, 9);
    assert!(matches!(judge("主调度每天 01:30 开始。", day, false), Verdict::Keep(_)));
    // Every day of a stretch of the past, or a one-off "runs once a day" request, is not.
    assert!(!matches!(
        judge("新建一个 ERP 凭证同步的 DAG，每天跑一次，落到 ClickHouse。", day, false),
        Verdict::Keep(Kept { standing: true, .. })
    ));
    assert!(!prescribes("过去 90 天每天主 DAG 的完成时间"));
}

#[test]
fn a_decision_line_the_engine_built_is_kept_whole() {
    let line = "What's your take on accessibility — keep it simple, or aim for a specific WCAG level? Answered: yes, lets make it simple.";
    match judge(line, day(), true) {
        Verdict::Keep(k) => {
            assert_eq!(k.kind, Kind::Decision);
            // The dash's aside and the reply's order stay.
            assert_eq!(k.text, line);
        }
        other => panic!("{other:?}"),
    }
    // A lead goes, as any sentence's does.
    match judge("First question: When should the summary be generated? Chosen: At commit time.", day(), true)
    {
        Verdict::Keep(k) => {
            assert_eq!(k.text, "When should the summary be generated? Chosen: At commit time.")
        }
        other => panic!("{other:?}"),
    }
    // Typed by the user, the same words are judged as any sentence is.
    assert!(!matches!(judge(line, day(), false), Verdict::Keep(Kept { kind: Kind::Decision, .. })));
    // A pick about one commit is a step of that moment's work.
    assert_eq!(
        judge(
            "Status check-in — Task 2.3 (`2c315c1`) pushed to PR #13. Chosen: Apply the fix now (adds one deviation from plan).",
            day(),
            true
        ),
        Verdict::Drop(Dropped::Status)
    );
}

#[test]
fn across_the_codebase_is_scope_across_a_planet_is_not() {
    // What spans the project's code is a standing rule; a story's events are not.
    for rule in [
        "Service objects in app/services over fat models, that's the convention across this codebase.",
        "Structured logging with the request id across all our services.",
    ] {
        assert!(kept(rule).is_some(), "{rule}");
    }
    for story in [
        "When the ship went down, those records broke apart and scattered across this planet.",
        "Then your ship went down. Its record broke apart across this planet.",
    ] {
        assert_eq!(kept(story), None, "{story}");
    }
}

#[test]
fn no_and_a_thing_of_the_trade_is_a_rule_no_and_a_plain_word_is_not() {
    for rule in
        ["No floats.", "no malloc", "No H2.", "No emojis.", "no force unwraps, ever", "No Options API."]
    {
        assert_eq!(kept(rule), Some(Kind::Preference), "{rule}");
    }
    // What the user sees on the screen now: the water in a scene, the text of a story.
    for seen in ["No water.", "no writing style", "No worries."] {
        assert_eq!(kept(seen), None, "{seen}");
    }
}

#[test]
fn a_sentence_that_stops_on_an_article_or_opens_a_bracket_it_never_closes_is_cut_short() {
    for cut in [
        "[the description of the records shouldnt be just about the repairs what about like the .",
        "We always deploy the.",
        "(we use pnpm in this repo, never npm",
    ] {
        assert_eq!(judge(cut, day(), false), Verdict::Drop(Dropped::NotDurable), "{cut}");
    }
    for whole in ["We always deploy with option A.", "[Note] We use pnpm in this repo, never npm."] {
        assert!(kept(whole).is_some(), "{whole}");
    }
}

#[test]
fn an_end_of_support_is_a_decision_though_said_as_an_order() {
    for decision in [
        "Drop support for the MSI Windows package.",
        "Please stop supporting Node 16.",
        "We should drop support for Python 3.8 in the next release.",
        "Let's deprecate support for IE11.",
    ] {
        assert_eq!(kept(decision), Some(Kind::Decision), "{decision}");
    }
    // Support of something else, or no support ended: the order of the moment.
    for order in
        ["Drop the support branch.", "Add support for dark mode.", "Remove the support link from the footer."]
    {
        assert_eq!(kept(order), None, "{order}");
    }
}

#[test]
fn who_designs_a_thing_and_what_goes_through_them_is_a_person_fact() {
    assert_eq!(
        kept("Joost designs the boards, anything about pins or parts goes through him."),
        Some(Kind::Person)
    );
    assert_eq!(kept("Anything about pricing goes through her, Priya decides."), Some(Kind::Person));
    // A request that goes through a service names no one.
    assert_eq!(kept("The request goes through the gateway."), None);
}
