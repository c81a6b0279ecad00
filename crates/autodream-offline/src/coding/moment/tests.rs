//! The talk of the moment, and the facts and rules said in the same forms.

use super::*;

#[test]
fn the_talk_of_the_moment_is_dropped() {
    for (said, why) in [
        (
            "However, accumulatedUserAdded from PromptAttributions includes edits to ALL files",
            Dropped::NotDurable,
        ),
        ("This means if we do EnsureSetup in stop we might be to late", Dropped::NotDurable),
        (
            "The author of the 'trailing transcript' checkpoint-branch commits is not set correctly",
            Dropped::Status,
        ),
        ("Manual strategy is also missing the props TranscriptUUIDAtStart inside metadata", Dropped::Status),
        ("The conflict resolution shouldn't be too hard", Dropped::Status),
        (
            "Entire session list command does not display the checkpoints of the sessions that are not active",
            Dropped::Status,
        ),
        ("Running `mise run test:ci` shows a bunch of errors in the integration tests", Dropped::Status),
        ("After condensation, state.PromptAttributions and state.Pending are not cleared", Dropped::Status),
        ("The --long status output displays \"Local, enabled ()\", which is confusing", Dropped::Status),
        ("If we use flags, we can track the usage via metrics more easily", Dropped::NotDurable),
        ("Copilot has done its review as well, it's left some comments", Dropped::Status),
        ("At some future point we may want to cache the checkpoint relationships", Dropped::NotDurable),
        (
            "We need to have a more robust solution to ensure it's definitely \"always\" addressed",
            Dropped::NotDurable,
        ),
        (
            "\"if staged files overlap with Claude's work\" <- I don't understand what you mean",
            Dropped::Question,
        ),
        ("I figure we need to create the agent Type and rewire everything anyway", Dropped::NotDurable),
        ("From what I've observed the agent takes the shortest path to code", Dropped::NotDurable),
        ("I don't know I agree with its proposed solution though", Dropped::NotDurable),
        ("Just to be sure, the date of the commit stays the same", Dropped::NotDurable),
        (
            "The `entire/sessions` branch should have the checkpoints with the session logs for each of these commits",
            Dropped::NotDurable,
        ),
        ("I do need to use that method: ComputeTranscriptPath when we restore logs", Dropped::NotDurable),
        (
            "The validation package is now the single source of truth for this regex pattern",
            Dropped::NotDurable,
        ),
        ("Let's do the one here as well, it needs a valid id", Dropped::NotDurable),
        (
            "Based on the PR changes and the function rename, session IDs are now used directly",
            Dropped::Pasted,
        ),
        ("Instead of \"Another sessions...\"", Dropped::NotDurable),
        ("Like it can only go back the active branch", Dropped::NotDurable),
        ("Is currently in Preview", Dropped::NotDurable),
        (
            "Since .env files are commonly used by other tools (Docker Compose, Rails, etc.)",
            Dropped::NotDurable,
        ),
        ("To make the notice easier to dismiss", Dropped::NotDurable),
        ("One approach is to compare the returned commit hash with the current HEAD", Dropped::NotDurable),
        ("We could use something like entire/<commit>-<hash>", Dropped::NotDurable),
        ("What was the trigger (manual --generate vs checkpoint auto-summary)", Dropped::Question),
        ("Manual commit strategy isn't producing transcript line numbers", Dropped::Status),
        ("Condensation happened, which should have deleted the shadow branch", Dropped::Status),
        ("Looking at the changes you did, it has a note", Dropped::Pasted),
        ("We are still mid-session debugging", Dropped::Status),
        (
            "I get that our biggest issue is IPNS flakiness, and feel that since we see conflicts",
            Dropped::NotDurable,
        ),
        (
            "If a developer follows the instructions and copies this file to .env, dev mode activates, causing hooks to run twice",
            Dropped::Pasted,
        ),
        (
            "The step is calculated based on the length of the segment, which is obviously different for 5 cells",
            Dropped::NotDurable,
        ),
        ("We do have conflicts with main", Dropped::Status),
        ("In setup.go we now call strategy.OpenRepository()", Dropped::Status),
        ("I don't want any padding.", Dropped::Request),
        ("I don't like those borders", Dropped::Request),
        ("We don't need to commit", Dropped::Request),
        ("We were working on ENT-109 (linear) on this branch", Dropped::Status),
        ("To hide this notice in the future", Dropped::NotDurable),
        ("In `src/render.ts` it returns the cached frame", Dropped::Status),
        ("Which doesn't fully reflect that", Dropped::NotDurable),
        (
            "While this is still ok this will add friction the more agents the CLI support",
            Dropped::NotDurable,
        ),
        ("It would be good to note the load, but not bring all the contents in", Dropped::NotDurable),
        ("Need a little patch for `entire explain` that prints the help text", Dropped::NotDurable),
        ("We need to have a more robust solution to ensure it's addressed", Dropped::NotDurable),
        ("There is a REVIEW.md and I just closed this session", Dropped::Status),
        ("There is a PR review comment", Dropped::Status),
        ("Or \"(Does not exist yet)\" or \"(is the same)\"", Dropped::NotDurable),
        ("In theory the commits we look at should have nearly the same date", Dropped::NotDurable),
        ("I don't think the reviewer would have been making commits", Dropped::NotDurable),
        (
            "Looking at GetSessionLog in manual_commit_logs it's currently has a parameter",
            Dropped::NotDurable,
        ),
        (
            "To reduce the risk of exposing the key, consider removing these fields from the payload",
            Dropped::Pasted,
        ),
        ("If repo.Config() returns a config without an initialized Raw, this can panic", Dropped::Pasted),
        (
            "These should be redirected to a discard sink (e.g., an opened handle to /dev/null) rather than left as nil when detached",
            Dropped::Pasted,
        ),
        ("E.g. commit hook, I want the notification that the reviewer is done", Dropped::NotDurable),
        ("Then we look at 50 commits in entire/sessions and get what is linked there", Dropped::NotDurable),
        ("The test-repo skill should use its own path then", Dropped::NotDurable),
        ("Remove it completely, no need to deprecate it", Dropped::Request),
        ("We didn't have a local branch entire/sessions", Dropped::Status),
        ("Don't give it a number and it needs no date or status in the file", Dropped::NotDurable),
        ("Seems the MCP server is not correct: when doing a query no data is returned", Dropped::Status),
        ("It looks like the cache is stale after the deploy", Dropped::Status),
        (
            "If sensors are shown in the answers, they shoul have a clickable link to the map",
            Dropped::Request,
        ),
        (
            "If the user stashed, run a new prompt that created file changes then any prior stashed files are now forgoten by our logic",
            Dropped::Status,
        ),
        (
            "Apparantely there is a REVIEW.md, I can see something was triggered on the last commit",
            Dropped::Status,
        ),
        ("If I use Mistral the results are not that great", Dropped::Status),
        ("For this kind of data we need to have it in a table format", Dropped::Request),
        ("If you have access to the server\"", Dropped::NotDurable),
        ("We have a number of open PRs are any of them stale or ready to merge", Dropped::Question),
        (
            "That's just for search now if we want traces like Phoenix do you think that's going to require much code",
            Dropped::Question,
        ),
        ("A line to vercel how are multiple runs used in CI", Dropped::Question),
        ("I meant for entireio/cli which we configured in the .entire folder", Dropped::NotDurable),
        ("If so we can use remote and no need for remote_name alias", Dropped::NotDurable),
        ("WE previously had a consistent style with the run list", Dropped::NotDurable),
        ("8i48KY) can be accessed at https://api.example.org", Dropped::NotDurable),
        ("For 312 there is also the approach to search the commit that has the trailer", Dropped::NotDurable),
        ("Parent on the PR is alex/ent-221-type-consolidation", Dropped::NotDurable),
        ("We are reviewing https://github.com/example/cli/pull/102", Dropped::Status),
        ("Fix is pushed, there's a merge conflict now", Dropped::Status),
        ("Just to be sure, the date of the commit never changes", Dropped::NotDurable),
        ("For a first-time Fish user, we need to create ~/.config/fish", Dropped::Request),
        ("If they're the same, no new commit was created and Created should be false", Dropped::Request),
        ("It should be worktree plus the new changes done by session 2", Dropped::Request),
        ("You have an active Claude Code session", Dropped::Status),
        // What the agent did in this session, told back to it.
        (
            "You marked https://github.com/o/r/issues/950 for deletion but that's a useful feature",
            Dropped::Status,
        ),
        ("You deleted the wrong file", Dropped::Status),
        // What a screenshot shows.
        (
            "The dogfood https://github.com/o/r/blob/e/shots/03-case-detail.png shows a worse design",
            Dropped::Status,
        ),
        ("In docs/screenshots/studio-dark.webp the toolbar overlaps the editor", Dropped::Status),
        ("currently we are working in @docs/planning/prd.md", Dropped::Status),
        ("Once we switch to a new one, rewind should not bother with the old one", Dropped::NotDurable),
        ("Session 1 changes were discarded, so it should NOT be attributed", Dropped::NotDurable),
        (
            "When CheckpointCount is reset to 0 but PromptAttributions retains old entries, subsequent checkpoints append new entries",
            Dropped::NotDurable,
        ),
        ("The reviewer looks at it, then eventually, maybe, writes in the README", Dropped::NotDurable),
        (
            "Where the second element in the path you can find it in the projectHash attribute",
            Dropped::NotDurable,
        ),
        (
            "Summaries are extracted from transcript content via extractLastAssistantMessage and written to the metadata directory",
            Dropped::Pasted,
        ),
        (
            "If the authenticated WebSocket connection fails, the app silently falls back to public-only mode",
            Dropped::Status,
        ),
        (
            "The agent's text output length does not match the length of the text output field",
            Dropped::Status,
        ),
        // A plan weighed in the first person is not yet a decision.
        ("I'm thinking of moving the docs to Astro", Dropped::NotDurable),
        (
            "Also I am thinking to start publishing the cli to `chkit` instead of `@chkit/cli` to better ergonomics",
            Dropped::NotDurable,
        ),
        ("I was thinking we could split the worker into two queues", Dropped::NotDurable),
        ("So this is kind of the main entry point for everything distribution", Dropped::NotDurable),
        // A deduction about what went wrong: "must" and "have to" as a guess, not a rule.
        ("It must have been changes of the last 2 days", Dropped::NotDurable),
        ("There also have to be bugs in jobQuery.go", Dropped::NotDurable),
        (
            "Currently a segvault occurs when the option enable-job-taggers is set to true but the tagger rules directories are missing",
            Dropped::Status,
        ),
        (
            "The buildQueries logic on @pkg/metricstore/query.go is diverged from the buildQueries logic in @internal/metricstoreclient/cc-metric-store-queries.go",
            Dropped::Status,
        ),
        // What the user shows of the moment: attached images and recordings, and what they
        // saw when trying something.
        (
            "When setting up a custom phrase, the design changes from the empty state (image 10) to the text area in focus (image 11)",
            Dropped::Status,
        ),
        ("The keyboard also hides the button (image 12) which is unreachable", Dropped::Status),
        (
            "If you watch the video ScreenRecording_02-14-2026.MP4 you can see that it never gets past 40%",
            Dropped::Status,
        ),
        (
            "When using the share extension adding lots of files, the files don't get really synced",
            Dropped::Status,
        ),
        ("Find a way to test such that issues like these don't occur", Dropped::NotDurable),
        // A regression told then and now, the last changes, an option weighed.
        ("Before then 100 files were ingested in seconds, now it takes literal minutes", Dropped::Status),
        ("In last changes it was batched by 20", Dropped::NotDurable),
        ("Additional option would be adding https://marathonlabs.io", Dropped::NotDurable),
        // The objects of the moment: a count of what was just listed, each one, the rest.
        ("Use a team of agents to handle all 3 Polish items", Dropped::NotDurable),
        ("Use subagents to clean those up", Dropped::NotDurable),
        ("Use subagents to fix all", Dropped::NotDurable),
        (
            "@.claude/skills/excalidraw/ - this gets stuck on \"more than 32k tokens output not allowed\"",
            Dropped::Status,
        ),
        // What happened to a build or a release.
        (
            "The @chkit/plugin-codegen@0.1.0-beta.3 npm package was published without the dist directory",
            Dropped::Status,
        ),
        (
            "The generated files were produced based on the local source at /Users/marc/chx/packages/plugin-codegen/",
            Dropped::Status,
        ),
        // The speaker says the thing is a trial.
        ("Project-local this is just a quick test.", Dropped::NotDurable),
        ("It's only a prototype, the layout will change.", Dropped::NotDurable),
        // Whether something ran, told after the fact.
        ("publish-cask-head.yml was not called", Dropped::Status),
        ("The post-merge hook wasn't even invoked", Dropped::Status),
        // A question typed without its question mark; a guess said with "idk" or "or something".
        ("What would we do that warrants needing a recap", Dropped::Question),
        ("So what should the third level teach", Dropped::Question),
        (
            "It can say like creating a checkpoint is saving a core memory of all the steps or something idkkk",
            Dropped::NotDurable,
        ),
        // A file handed over through downloads, the desktop or a temp folder.
        ("Icon is at ~/Downloads/Orpheus_App_Icon.png", Dropped::Status),
        ("The dump I took is in /tmp/prod.sql", Dropped::Status),
        ("The export is on my desktop: /Users/ana/Desktop/report.csv", Dropped::Status),
    ] {
        assert_eq!(of_the_moment(said), Some(why), "{said}");
    }
}

#[test]
fn facts_and_rules_in_the_same_forms_are_left_to_the_rules() {
    for said in [
        "However, we always squash before merging.",
        "Errors are silently retried three times by the client library, by design.",
        "Instead of npm, use pnpm for everything.",
        "Staging is the environment the QA team uses.",
        "The release notes should be short and link the PR.",
        "What we ship is what CI built, never a local build.",
        "What the deploy job does is run the migrations first.",
        "When other apps or whatever is added, we deploy everything on merge on main.",
        "There is a staging server at staging.example.com that QA uses.",
        "Orders go through the billing service, not the API.",
        "To run the e2e suite, use `make e2e` with the staging token loaded.",
        "You can always use the config in the home folder for renderer tests.",
        "In main.go we always call config.Load() before anything else.",
        "I don't want any emoji in commit messages.",
        "I don't want dead config lying around.",
        "We don't need to commit the generated files in this repo.",
        "In this repo we use the toolchain file, not rustup defaults.",
        "Every change to this codebase goes through a PR.",
        "The grafana dashboard is deployed here: https://grafana.example.com/",
        "Do not wrap long lines in the markdown as that ruins the rendering on GitHub.",
        "Each commit that has a trailer is linked to its checkpoint.",
        "If error is type of cli.SilentError, do not print anything.",
        "The CLI prints a usage line and exits with 2 on a bad flag, by design.",
        "If you need a database locally, run `make db`.",
        "First we build the docs, then we deploy them with `make publish`.",
        "We didn't pick Kafka because the ops team cannot run it.",
        "Don't use the ORM for reports; write the SQL by hand.",
        "There is no need to run the e2e suite locally, CI does it on every PR.",
        "The team changed this to use the entire cli in the path.",
        "Imogen approves copy changes, and the freeze is on the 20th, so tweaks need to be in before then.",
        "If we touch the schema, bump the version in the same PR.",
        "Please use the british spelling :)",
        "Staging is on Heroku, app name tidepool-staging, if you need to check anything there.",
        "Use prefix 'rwr/' for the branch name",
        "Lookups get cached in Redis, not an in-process LRU, because we run 6 replicas.",
        "When a deploy fails, the on-call gets paged and must roll back first.",
        "Claude Rule should appear as \"Claude Rule\", not just \"Rule\"",
        "Release notes should link every PR they mention.",
        "You have access to the staging database through the bastion.",
        // What the user says against what the agent did is how things are done here.
        "You used npm but we use pnpm in this repo.",
        "You need the VPN for the staging database.",
        "The app icon is assets/icon.png, exported from the Figma file.",
        "Screenshots for the README live in docs/assets/screenshots/.",
        "The nightly job is run by the scheduler at 02:00 UTC.",
        "Temporary files go to tmp/ in the repo, which is gitignored.",
        "The staging cluster is only a test environment, never point real customers at it.",
        "Secrets are loaded from the vault via the `vault-agent` sidecar.",
        "The \"Checkpoint:\" trailer names the checkpoint on every commit.",
        // A failure under a condition, a rename, a purpose or a maker: what holds.
        "Deploys stop if the smoke test fails.",
        "The web-platform team was renamed to frontend-infra.",
        "The docs site was built by Ana in Astro.",
        "The worker was built to run on a single core.",
        "Releases are published to npm by the CI job.",
        "A kind of cache sits in front of the API.",
        "A PR must have been reviewed by two people before it is merged.",
        "There must be a changelog entry for every user-facing change.",
        "The config has to be valid TOML.",
        "Currently we deploy with Fly.",
        "The build fails when the lockfile is out of date.",
        "When using the API, always pass the tenant header.",
        "Use subagents to handle all actions.",
        "All 3 services use Postgres.",
        "We're moving the docs to Cloudflare Pages, the rest of our stuff is on Cloudflare anyway.",
        "Never commit screenshots like docs/screenshots/login.png to the repo.",
    ] {
        assert_eq!(of_the_moment(said), None, "{said}");
    }
}

#[test]
fn a_reaction_to_what_was_just_shown_is_the_moment_a_way_named_instead_is_not() {
    for said in [
        "i dont get the metal panel idea",
        "i dont really like the prose for the opening story in this game",
        "I don't get the point of the new panel",
        "We don't love these colours",
    ] {
        assert_eq!(of_the_moment(said), Some(Dropped::Status), "{said}");
    }
    for said in [
        "I don't like the builder pattern here, use plain structs",
        "I don't like the mocks, I prefer real databases in tests",
        "We never like the generated clients, always write them by hand",
        "I don't like em dashes in docs",
    ] {
        assert_eq!(of_the_moment(said), None, "{said}");
    }
}
