//! Picks among the agent's options and replies to its questions, on messages written for the tests.

use super::*;

const TABLE: &str = "**Next question:** How should the configuration key be named?\n\n| Option | Description |\n|--------|-------------|\n| **A. `auto_summarize: true` (Recommended)** | Simple boolean in `strategy_options`. Clear intent. |\n| **B. `summarize: { enabled: true }`** | Nested object allowing future model override. |\n| **C. `generate_summaries: true`** | Alternative naming. |\n\nWhich naming do you prefer?";

const HEADINGS: &str = "Here are the common patterns:\n\n**Option A — \"New Contributors\" section (GitHub Releases style)**\n\nGitHub auto-generates this in release notes.\n\n```markdown\n### New Contributors\n```\n\n**Option B — Inline attribution (Rails style) (most common)**\n\nMention the author in each entry.\n\n**Option C — Thank you footer (Homebrew / many CLIs)**\n\nA short callout at the bottom of each release:\n\n```markdown\n### Thanks\n```\n\nWant me to update the changelog?";

#[test]
fn the_answer_names_a_label() {
    for (answer, label) in [
        ("A.", "A"),
        ("A. is fine, ensure we log", "A"),
        ("I like Option C", "C"),
        ("I think B, nested in strategy options - it leaves us space", "B"),
        ("let's go with option 2", "2"),
        ("option 3", "3"),
        ("C)", "C"),
    ] {
        assert_eq!(picked(answer).as_deref(), Some(label), "{answer}");
    }
    for answer in [
        "a new approach would be better",
        "1. no 2. we show the active checkpoints",
        "I think we should drop it",
        "Add a README",
    ] {
        assert_eq!(picked(answer), None, "{answer}");
    }
}

#[test]
fn options_in_a_table_and_under_headings_are_read() {
    let (offers, question) = offered(TABLE);
    assert_eq!(offers.len(), 3);
    assert_eq!(offers[1].title, "B. `summarize: { enabled: true }`".trim_start_matches("B. "));
    assert_eq!(offers[1].detail.as_deref(), Some("Nested object allowing future model override."));
    assert_eq!(question.as_deref(), Some("How should the configuration key be named?"));
    let (offers, question) = offered(HEADINGS);
    let titles: Vec<&str> = offers.iter().map(|o| o.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "\"New Contributors\" section (GitHub Releases style)",
            "Inline attribution (Rails style)",
            "Thank you footer (Homebrew / many CLIs)"
        ]
    );
    assert_eq!(offers[2].detail.as_deref(), Some("A short callout at the bottom of each release"));
    assert_eq!(question, None, "the question after the options is not the one they answer");
}

#[test]
fn the_decision_says_what_was_chosen_over_what() {
    assert_eq!(
        decision(TABLE, "I think B.").as_deref(),
        Some(
            "How should the configuration key be named? Chosen: `summarize: { enabled: true }`: Nested object allowing future model override; not `auto_summarize: true`, nor `generate_summaries: true`."
        )
    );
    let d = decision(HEADINGS, "I like Option C").expect("a decision");
    assert!(d.starts_with("Chosen: Thank you footer (Homebrew / many CLIs): A short callout"), "{d}");
    // A label the agent did not offer, or a message with one option, decides nothing.
    assert_eq!(decision(HEADINGS, "D."), None);
    assert_eq!(decision("**Option A — Do it now**\n\nOk?", "A."), None);
    assert_eq!(decision("Shall I go on?", "A."), None);
    // Columns of a listing under an option are no description of it.
    let listing = "**Option A — Show the current branch**\n\nBranch        Description\n\n\
                   **Option B — Show the original branch**\n\nSimple and historical.";
    assert_eq!(decision(listing, "A"), None, "no question and no description: nothing to place");
    // Remedies for a problem found now decide the task at hand.
    let remedies = "## Root Cause Found\n\nThe slowness is caused by a background archive build.\n\n\
                    **Option 1: Disable JSON Archive (Recommended for now)**\nRemove the archive flag.\n\n\
                    **Option 2: Wait for Build to Complete**\nLet it finish (30+ more minutes).\n\nWhich would you prefer?";
    assert_eq!(decision(remedies, "Option 2"), None);
    let gateway = "CloudFront is returning 502 errors for the endpoint.\n\n## Solutions:\n\n\
                   ### Option 1: CloudFront Cache Invalidation (Recommended)\nCreate an invalidation.\n\n\
                   ### Option 2: Quick Test - Access Map via IP\nBypass the CDN for now.";
    assert_eq!(decision(gateway, "Option 1"), None);
    let go_on = "Here is where we stand.\n\n**Option A — Compromise: Implement Phase 1 only**\nSmaller change.\n\n\
                 **Option B — Proceed As-Is**\nKeep the plan.";
    assert_eq!(decision(go_on, "A."), None);
    // Options that point at lines of the code change that code now.
    let at_lines = "How should the conflict state be fixed?\n\n**Option A — Set BaseCommit when creating the state**\nComplete from the start.\n\n\
                    **Option B — Initialize missing fields when the conflict resolves**\nHere at line 928-935.";
    assert_eq!(decision(at_lines, "A."), None);
    let terse = "**Option A — Pre-extract key content**\nControlled size, cheaper.\n\n\
                 **Option B — Full transcript via stdin**\nEverything, costly.";
    assert_eq!(decision(terse, "A"), None, "no question and a description of three words");
    let described = listing.replace("Branch        Description", "Shows where the session is now.");
    assert_eq!(
        decision(&described, "A").as_deref(),
        Some(
            "Chosen: Show the current branch: Shows where the session is now; not Show the original branch."
        )
    );
}

#[test]
fn what_the_user_says_with_the_label_says_how_it_was_meant() {
    for (answer, words) in [
        ("A. is fine, ensure we log", Some("ensure we log")),
        (
            "A. just manual commit for now (Can we update the linear issue ENT-96 to reflect this?)",
            Some("just manual commit for now"),
        ),
        (
            "I think B, nested in strategy options - it leaves us space to further customise later on. please use the british spelling :)",
            Some("nested in strategy options - it leaves us space to further customise later on"),
        ),
        ("A.", None),
        ("I like Option C", None),
        ("B, why not?", None),
        ("C. sounds good", None),
        ("1 straight away", None),
        ("B, go for it please", None),
        ("I like Option 1, from a enabling perspective:\n\nentire enable -> as before", None),
    ] {
        assert_eq!(refinement(answer).as_deref(), words, "{answer}");
    }
    assert_eq!(
        decision(TABLE, "I think B, nested in strategy options").as_deref(),
        Some(
            "How should the configuration key be named? Chosen: `summarize: { enabled: true }` (nested in strategy options): Nested object allowing future model override; not `auto_summarize: true`, nor `generate_summaries: true`."
        )
    );
}

#[test]
fn the_users_own_terms_for_the_option_picked_are_the_decision() {
    let options = "## Options\n\n### Option 1: Wrapper in committed file (Simplest)\n- **Commit** `.claude/settings.json` with wrapper script\n- Wrapper checks `ENTIRE_LOCAL_DEV`\n\n\
                   ### Option 2: Local dev requires removing settings.json hooks\n- Keep settings.json with direct commands\n\nWhat do you think?";
    let answer = "I like Option 1, from a enabling perspective: \n\nentire enable -> just works as before, entire from path\nentire enable --local-dev -> creates the wrapper script, using ENTIRE_LOCAL_DEV\n\nin this repo we want to commit `entire enable --local-dev` state";
    assert_eq!(
        decision(options, answer).as_deref(),
        Some(
            "Chosen: Wrapper in committed file: entire enable -> just works as before, entire from path; entire enable --local-dev -> creates the wrapper script, using ENTIRE_LOCAL_DEV; not Local dev requires removing settings.json hooks."
        )
    );
    // Without the colon, or with a question among the lines, the agent's description stands.
    for answer in [
        "I like Option 1\n\nentire enable -> just works as before",
        "I like Option 1:\nwhat does the wrapper do?\n",
    ] {
        assert_eq!(spelled_out(answer), None, "{answer}");
        let d = decision(options, answer).expect("a decision");
        assert!(d.contains("Commit `.claude/settings.json` with wrapper script"), "{d}");
    }
    assert_eq!(spelled_out("Add these:\n- one\n- two"), None, "no pick");
}

const QUESTIONS: &str = "Here are the scenarios.\n\n```\n1. not a question?\n```\n\n**Questions for you:**\n1. Do you prefer the ending indicators (`╭╰•`) or just continuous lines with implicit gaps?\n2. Should the active session always be lane 1 (leftmost), or rightmost?\n3. For >3 sessions, should we cycle lanes or just show space (no line)?";

#[test]
fn numbered_replies_are_written_with_their_questions() {
    let got = answers(
        QUESTIONS,
        "1. i like option 3, 2. left most, if all 3 lanes are active we just show no line",
    );
    assert_eq!(
        got,
        vec![Answer {
            line: "Should the active session always be lane 1 (leftmost), or rightmost? Answered: left most, if all 3 lanes are active we just show no line.".to_string(),
            reply: "left most, if all 3 lanes are active we just show no line".to_string(),
        }]
    );
    let got = answers(QUESTIONS, "1 - continuous lines, 2 - leftmost, 3 - cycle");
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(
        got[2].line,
        "For >3 sessions, should we cycle lanes or just show space (no line)? Answered: cycle."
    );
    // A reply ends with its line; a reply that does not know answers nothing.
    let got = answers(QUESTIONS, "1. not sure yet, 2. leftmost\n\nI've also updated the issue.");
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].reply, "leftmost");
}

#[test]
fn a_yes_to_a_yes_or_no_question_says_what_was_agreed() {
    let asked = "Two questions:\n1. **Active session indicator**: Should we highlight the session that's currently running (matching the agent session ID)?\n2. Should branches start collapsed or expanded?";
    let got = answers(asked, "1. yes, 2. the branch we are currently in is open");
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(
        got[0].line,
        "Agreed: highlight the session that's currently running (matching the agent session ID)."
    );
    // An either-or question keeps the answer beside it; more than a yes keeps the question.
    assert_eq!(
        got[1].line,
        "Should branches start collapsed or expanded? Answered: the branch we are currently in is open."
    );
    let got = answers(asked, "1. yes but only in the list view, 2. expanded");
    assert!(got[0].line.ends_with("Answered: yes but only in the list view."), "{got:?}");
}

#[test]
fn replies_that_are_not_numbered_answers_give_nothing() {
    // Not numbered from 1, not numbered at all, numbers inside a sentence, a question back.
    for answer in [
        "2. leftmost",
        "leftmost and cycle",
        "we need 2 lanes and 3 colours",
        "1. is the runner not the same as the session creator? 2. yes",
    ] {
        let got = answers(QUESTIONS, answer);
        assert!(got.iter().all(|a| !a.line.contains("Do you prefer")), "{answer}: {got:?}");
        assert!(got.len() <= 1, "{answer}: {got:?}");
    }
    assert!(answers(QUESTIONS, "2. leftmost, 3. cycle").is_empty());
    assert!(answers(QUESTIONS, "leftmost and cycle").is_empty());
    // One question is no numbered list.
    assert!(answers("1. Should the rail be green?", "1. yes, 2. no").is_empty());
    // Questions about the work at hand decide nothing lasting.
    let work = "Two questions:\n1. **Are you okay replacing the PnP Modal SDK entirely?** You'd build the login screens yourself.\n2. **Do you want to research the Core Kit options first** before replanning?";
    let got = answers(work, "1 - yeah, 2 - definitely, go for it.");
    assert_eq!(got.len(), 1, "{got:?}");
    // A yes to a yes-or-no question is what was agreed.
    assert_eq!(got[0].line, "Agreed: replacing the PnP Modal SDK entirely.");
    assert!(is_pick(&got[0].line));
}

#[test]
fn numbered_and_quoted_options_under_a_subject_are_picked_with_it() {
    let numbered = "Review done. One item needs you.\n\n### Decision needed — D1\n\n**`joinRange` separator: en dash vs double-hyphen**\n\nThe story and the design notes disagree:\n- the story says two hyphens\n- the notes say an en dash\n\nYour options:\n1. **Keep en dash** (` – `) — matches the design notes; the code is right as it is\n2. **Change to double-hyphen** (` -- `) — follows the story word for word\n3. **Defer** — decide when the range widget is built\n\n**What is your call? (1 / 2 / 3)**";
    assert_eq!(
        decision(numbered, "1").as_deref(),
        Some(
            "`joinRange` separator: en dash vs double-hyphen. Chosen: Keep en dash (` – `): matches the design notes; the code is right as it is; not Change to double-hyphen (` -- `), nor Defer."
        )
    );
    let quoted = "## Decision: `--tint-glow` token format (`src/styles/theme.css:12`)\n\n**The issue:**\nThe token bakes in its alpha, so opacity modifiers cannot apply.\n\n**Your options:**\n\n> **A. Keep as-is — fixed translucent token**\n> Opacity modifiers stay unsupported for this token.\n\n> **B. Split into base + usage**\n> Define the base colour without alpha and set the opacity where it is used.\n\nWhich do you prefer — **A**, **B**, or **C**?";
    assert_eq!(
        decision(quoted, "b").as_deref(),
        Some(
            "`--tint-glow` token format. Chosen: Split into base + usage: Define the base colour without alpha and set the opacity where it is used; not Keep as-is — fixed translucent token."
        )
    );
    assert!(is_pick("`--tint-glow` token format. Chosen: Split into base + usage."));
}

#[test]
fn numbered_steps_and_remedies_pick_nothing() {
    // A plan's numbered steps, and no question asking to choose.
    let steps = "Here is the plan:\n\n1. **Add the flag** — parse it in main\n2. **Wire it up** — pass it to the runner\n\nShall I start?";
    assert_eq!(decision(steps, "1"), None);
    // Ways out of a problem found now, under its heading.
    let remedies = "## Root Cause Found\n\nThe service rebuilds its archive at every start.\n\n**Ways out**\n\n1. **Disable the archive** — restore speed now\n2. **Wait for the build** — it finishes in half an hour\n\nWhich would you prefer?";
    assert_eq!(decision(remedies, "2"), None);
}

#[test]
fn picking_to_do_nothing_decides_nothing() {
    let review = "### Decision 1: `Status` — `type` alias vs `interface`\n\nOptions:\n\n1. **Keep as `type` alias** (current) — the right construct for a union.\n2. **Wrap in an interface** — adds indirection for no clear benefit.\n3. **Dismiss** — the spec is imprecise; the intent is met.\n\nWhich do you prefer? (1, 2, or 3)";
    assert_eq!(decision(review, "3"), None);
    assert_eq!(
        decision(review, "1").as_deref(),
        Some(
            "`Status` — `type` alias vs `interface`. Chosen: Keep as `type` alias (current): the right construct for a union; not Wrap in an interface, nor Dismiss."
        )
    );
}

#[test]
fn ways_to_go_on_pick_nothing_under_any_heading() {
    // A numbered list with no question and no subject above it.
    let execution = "Plan complete. Two execution options:\n\n1. **Subagent-Driven (this session)** - a fresh subagent per task, review between tasks\n2. **Parallel Session (separate)** - open a new session with the plan\n\nWhich approach?";
    assert_eq!(decision(execution, "1"), None);
    // A heading over ways to go on with the work.
    let forward = "## Recommended Path Forward\n\n### Option A: Fix & Simplify\nRewrite the detector from scratch.\n\n### Option B: Compromise\nImplement phase 1 only, behind a flag that is on by default.\n\n### Option C: Proceed As-Is\nShip what we have.";
    assert_eq!(decision(forward, "B"), None);
}
