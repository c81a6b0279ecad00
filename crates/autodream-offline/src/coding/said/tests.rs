//! The said stage's tests: what of a turn is the user's own words, sentence by sentence.

use super::*;

#[test]
fn pasted_output_and_injected_blocks_are_not_prose() {
    let raw = "The worker crashes. Logs:\n2026-03-18 14:10:02 ERROR boom\n  File \"x.py\", line 3\nTraceback (most recent call last):\n```\nfn main() {}\n```\n<system-reminder>ignore</system-reminder>We use RSpec, specs live in spec/.";
    let (prose, dropped) = prose_of(raw);
    assert_eq!(prose, "The worker crashes. Logs:\nWe use RSpec, specs live in spec/.\n");
    assert_eq!(dropped, 3);
    let (prose, _) =
        prose_of("Look into it. The rules are:\n- pragmatic solution\n- no breaking changes\nThanks");
    assert_eq!(prose, "Look into it. The rules are: pragmatic solution; no breaking changes.\nThanks\n");
    let (prose, _) =
        prose_of("We need attribution on the summary\n- when was it created\n- what was the trigger");
    assert_eq!(prose, "We need attribution on the summary\nwhen was it created\nwhat was the trigger\n");
    // The ways a question weighs are not ways decided; a list after a plain question is.
    let (prose, _) = prose_of(
        "Which approach do you think is better?\n1. Asking only once at enable, and never again.\n2. something else?\nWe store the answer in the config.",
    );
    assert_eq!(prose, "Which approach do you think is better?\nWe store the answer in the config.\n");
    let (prose, _) = prose_of(
        "Which one is better?\n\n- pnpm\n- yarn berry with PnP\n\nWe store the answer in the config.",
    );
    assert_eq!(prose, "Which one is better?\nWe store the answer in the config.\n");
    let (prose, _) = prose_of("Can you check these?\n- we use pnpm everywhere\n- CI runs on Buildkite");
    assert_eq!(prose, "Can you check these?\nwe use pnpm everywhere\nCI runs on Buildkite\n");
    // A terminal pasted in: prompts of any shell, a tool's tagged and status lines, a
    // script's banners. The user's words around it stay.
    let raw = "push fails:\n❯ git push\n[entire] Pushing session logs to https://example.com/x.git...\n\
               dev@laptop playground % tail -f app.log\n=== Step 3: Enable ===\n✓ Git hooks installed\n\
               We always push with the hooks on.";
    let (prose, dropped) = prose_of(raw);
    assert_eq!(prose, "push fails:\nWe always push with the hooks on.\n");
    assert_eq!(dropped, 5);
    // A logger's lines: a syslog stamp or a bare clock, a level column.
    let raw = "Feb  8 22:02:21.647 |DEBU| hook invoked hook_type=agent\n\
               22:02:21 hook finished\nsession=abc |INFO| wrote 3 files\nThe hook runs on session end.";
    assert_eq!(prose_of(raw), ("The hook runs on session end.\n".to_string(), 3));
    // Two sentences a tool glued with a comma: the order after it is judged alone.
    assert_eq!(
        sentences_of("Direct casts skip validation logic, Add a validation helper that is used instead."),
        ["Direct casts skip validation logic", "Add a validation helper that is used instead."]
    );
    assert_eq!(
        sentences_of("We write the services in Rust, Go and Python."),
        ["We write the services in Rust, Go and Python."]
    );
    // What the speaker takes back is not theirs to keep.
    assert_eq!(
        sentences_of(
            "We use pnpm. Prices are rendered with JS, maybe Playwright. Never mind, forget I said that. Ship it."
        ),
        ["We use pnpm.", "Ship it."]
    );
    assert_eq!(
        sentences_of("价格是 JS 渲染的，要不要上 Playwright……算了当我没说，先把这个做完。"),
        ["先把这个做完。"]
    );
    // "Never mind the …" is an order about what to ignore, "don't forget that" a reminder,
    // and nvm a tool.
    for kept in [
        "Never mind the warnings in generated code.",
        "Don't forget that the API needs a token.",
        "We install node with nvm.",
    ] {
        assert_eq!(sentences_of(kept), [kept]);
    }
    let raw = "Something ran on the last commit but nothing in the logs ❯ Commit the changes";
    assert_eq!(prose_of(raw).0, "Something ran on the last commit but nothing in the logs\n");
    // A line that announces pasted text: what follows is not the user's.
    let raw =
        "Can you check this?:\n\n\"The CloudFront distribution is missing a behavior. Could you add one.\"";
    assert_eq!(prose_of(raw).0, "Can you check this?:\n");
    let raw = "We got a complaint:\n\nDear Sir or Madam,\nRedis is reachable from the internet.";
    assert_eq!(prose_of(raw), ("We got a complaint:\n".to_string(), 2));
    // A short request to work on the text after its colon: that text is the material.
    let raw = "explain the diff:\nThe research skill is the methodology — how to think about\n  research (scope, gather, cite).";
    assert_eq!(prose_of(raw), ("explain the diff:\n".to_string(), 2));
    for lead in ["Fix these issues:", "How to fix this:", "consider:", "Can you review this:"] {
        let raw = format!("{lead}\nThe cache is rebuilt on every request.");
        assert_eq!(prose_of(&raw).0, format!("{lead}\n"), "{lead}");
    }
    // Unless it introduces the user's own rules, or asks about something before the colon.
    let raw = "Consider these rules:\n- never force push\n- squash on merge";
    assert_eq!(prose_of(raw).0, "Consider these rules:\nnever force push\nsquash on merge\n");
    let raw = "We ship on Fridays.\nFix these issues:\nThe cache is rebuilt on every request.";
    assert_eq!(
        prose_of(raw).0,
        "We ship on Fridays.\nFix these issues:\nThe cache is rebuilt on every request.\n"
    );
    let raw = "Read this and remember:\nWe deploy from the release branch.";
    assert_eq!(prose_of(raw).0, "Read this and remember:\nWe deploy from the release branch.\n");
    // The user's own list after a colon is theirs.
    let raw = "The rules are:\n- never force push\n- squash on merge";
    assert_eq!(prose_of(raw).0, "The rules are: never force push; squash on merge.\n");
    // "I'd prefer that" and bullets: one preference, its items long or short.
    let raw = "I'd prefer that\n- each agent defines its string constants\n- the registry has some functions which look up and return the relevant agent Type based on either name or Type";
    assert_eq!(
        prose_of(raw).0,
        "I'd prefer that each agent defines its string constants; the registry has some functions which look up and return the relevant agent Type based on either name or Type.\n"
    );
    // A program's message quoted in a line goes with the rest of the line.
    let raw = "There is a user warning: *UserWarning: The `project_name` argument is deprecated.* coming from logfire.\nWe pin logfire in pyproject.";
    assert_eq!(prose_of(raw).0, "There is a user warning:\nWe pin logfire in pyproject.\n");
    // A checkbox and a link are prose.
    assert_eq!(prose_of("[x] We ship on Fridays").0, "[x] We ship on Fridays\n");
}

/// A turn's sentences as the engine hears them: its prose, split and cleaned.
fn sentences_of(raw: &str) -> Vec<String> {
    let (prose, _) = prose_of(raw);
    let mut out = Vec::new();
    let day = jiff::civil::date(2026, 3, 1);
    let source = SaidIn::Log { file: "a.md".into(), line: 1 };
    push_sentences(&mut out, &prose, Timestamp::UNIX_EPOCH, day, source, false, TurnForm::default());
    out.into_iter().map(|s| s.text).collect()
}

#[test]
fn a_tag_question_makes_the_statement_before_it_a_question() {
    let mut out = Vec::new();
    let day = jiff::civil::date(2026, 7, 24);
    let source = SaidIn::Session { id: "s".into(), line: 3 };
    let prose = "Ah, but the segment data can be a map we provide. Or not?\nWe use Go templates. Right?\nNo tags here. We ship weekly.";
    push_sentences(&mut out, prose, Timestamp::UNIX_EPOCH, day, source, false, TurnForm::default());
    let texts: Vec<&str> = out.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Ah, but the segment data can be a map we provide. Or not?",
            "We use Go templates. Right?",
            "No tags here.",
            "We ship weekly."
        ]
    );
    assert_eq!(out.iter().map(|s| s.index).collect::<Vec<_>>(), [0, 1, 2, 3]);
}

#[test]
fn a_dash_that_turns_to_an_order_ends_the_statement_before_it() {
    assert_eq!(
        split_before_order("The client id is 1645-abc - you should update this in the .env.example."),
        ["The client id is 1645-abc", "you should update this in the .env.example."]
    );
    assert_eq!(
        split_before_order("We are back - implement both, use the new field please."),
        ["We are back", "implement both, use the new field please."]
    );
    // A dash before anything but an order, or after a single word, joins one sentence.
    for one in [
        "Use pnpm - never npm.",
        "We now say summarize - let's make sure we're using US English everywhere.",
        "Staging - the QA box - runs nightly.",
        "Option - add it",
        "Metric definitions — net revenue etc — go through Hannah, she's the analytics lead.",
        "Don't use playwright to browse the web - use fetch or context7",
    ] {
        assert_eq!(split_before_order(one), [one]);
    }
}

#[test]
fn prose_with_code_spans_paths_and_cjk_is_kept() {
    for line in [
        "Always use `bin/rails`, never bare `rails`.",
        "我们所有组件都统一用 <script setup lang=\"ts\">，别再写 defineComponent 了。",
        "State lives in the S3 bucket acme-tfstate-prod (one bucket, per-env keys).",
    ] {
        assert!(!is_pasted_line(line), "{line}");
    }
    for line in [
        "> I'll add the check now",
        "$ cargo test",
        "0x7f2d9c8b1e50/ForkPoolWorker-3/trace",
        "at Object.run (index.js:4:7)",
        "+       // RetryCount is the number of attempts so far",
        "+// Note: agentName parameter is accepted for API compatibility",
        // A tool's log line, its level in lower case after its badge.
        "🦋  warn You are in prerelease mode",
        "error Command failed with exit code 1.",
    ] {
        assert!(is_pasted_line(line), "{line}");
    }
    // A level word that opens the user's own sentence is a word.
    for line in
        ["Error handling goes through thiserror in the library crates.", "Warning: never push to main."]
    {
        assert!(!is_pasted_line(line), "{line}");
    }
}

#[test]
fn blocks_of_another_agent_or_a_front_end_are_not_the_users_words() {
    let raw = "<teammate-message teammate_id=\"team-lead\" summary=\"Wait for DL-2\">\nDon't take the test tasks.\n</teammate-message>\n\n<ide_opened_file>The user opened src/app.rs.</ide_opened_file>\nWe use tokio everywhere.";
    assert_eq!(prose_of(raw).0, "We use tokio everywhere.\n");
    // A tag mentioned in prose, never closed by its own tag, stays.
    assert_eq!(prose_of("Wrap it in <b>bold</i> please").0, "Wrap it in <b>bold</i> please\n");
}

#[test]
fn the_items_of_a_list_the_user_declares_standing_are_heard_apart_and_unweighed() {
    use autodream_core::sessions::{SessionFile, SessionFormat, parse_session};
    // A review prompt the user keeps: orders around a declared list, a byte-order mark
    // before two of its bullets, and a list under "Evaluate:" that declares nothing.
    let prompt = "Review this plan thoroughly before making any code changes.\n\nMy engineering preferences (use these to guide your recommendations):\n- \u{feff}DRY is important-flag repetition aggressively.\n\u{feff}- Well-tested code is non-negotiable; I'd rather have too many tests than too few.\n\n## 1. Architecture review\nEvaluate:\n- Overall system design and component boundaries.\n- Dependency graph and coupling concerns.\n\nDo not assume my priorities on timeline or scale.";
    let line = serde_json::json!({
        "type": "user",
        "timestamp": "2026-03-01T10:00:00Z",
        "message": {"role": "user", "content": prompt},
    });
    let file = SessionFile {
        id: "s1".into(),
        path: "s1.jsonl".into(),
        modified_at: "2026-03-01T10:00:00Z".parse().unwrap(),
    };
    let session = parse_session(file, &format!("{line}\n"), SessionFormat::Auto);
    let now: Timestamp = "2026-03-02T00:00:00Z".parse().unwrap();
    let heard = hear(&[session], &[], now, &TimeZone::UTC);
    let declared: Vec<&str> =
        heard.sentences.iter().filter(|s| s.confirmed).map(|s| s.text.as_str()).collect();
    assert_eq!(
        declared,
        [
            "DRY is important-flag repetition aggressively.",
            "Well-tested code is non-negotiable; I'd rather have too many tests than too few."
        ]
    );
    for s in heard.sentences.iter().filter(|s| s.confirmed) {
        assert_eq!(s.form, TurnForm::default(), "{}", s.text);
    }
    // The rest of the prompt keeps its form: it is weighed as the long prompt it is.
    let design = heard.sentences.iter().find(|s| s.text.contains("Overall system design")).expect("heard");
    assert!(!design.confirmed);
    assert_ne!(design.form, TurnForm::default());
}

#[test]
fn a_persons_pronoun_takes_the_name_the_sentence_or_clause_before_gives() {
    assert_eq!(
        super::segment::sentences(
            "ok good. I'll ask Joost whether we can get the 256K part on the next spin — he designs the boards, anything about pins or parts goes through him."
        ),
        [
            "ok good.",
            "I'll ask Joost whether we can get the 256K part on the next spin",
            "Joost designs the boards, anything about pins or parts goes through him.",
        ]
    );
    assert_eq!(
        super::segment::sentences(
            "This needs to be in Storybook for Lena to check. she reviews every UI PR."
        ),
        ["This needs to be in Storybook for Lena to check.", "Lena reviews every UI PR."]
    );
    // Two people before the pronoun, or none: it stays, and nothing is split at the dash.
    assert_eq!(
        super::segment::sentences("Priya and Dana own billing. She reviews every PR."),
        ["Priya and Dana own billing.", "She reviews every PR."]
    );
    assert_eq!(
        super::segment::sentences(
            "Solveig does all our art — she exports from Aseprite — and she's sending one."
        ),
        ["Solveig does all our art — she exports from Aseprite — and she's sending one."]
    );
    assert_eq!(
        super::segment::sentences("The nightly job is slow — he said it times out."),
        ["The nightly job is slow — he said it times out."]
    );
}
