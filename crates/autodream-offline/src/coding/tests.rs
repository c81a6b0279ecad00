//! The coding path's own tests: pointers, holes and the project introduced.

use super::*;

#[test]
fn the_project_introduced_is_no_pronoun_subject() {
    assert!(!has_pronoun_subject("This is my personal blog, Hugo with the PaperMod theme."));
    assert!(!has_pronoun_subject("It's a Kotlin Multiplatform notes app."));
    assert!(has_pronoun_subject("This is a bug in the parser."));
    // The first or the latter of what was just listed.
    assert!(has_pronoun_subject("For the first we don't need force if the commit has a trailer."));
    assert!(has_pronoun_subject("The latter is what we ship."));
    assert!(!has_pronoun_subject("The first commit of a branch carries the trailer."));
    assert!(has_pronoun_subject("It is solved when the cache is warm."));
    assert!(introduces_the_project("This is my personal blog, Hugo with the PaperMod theme."));
    assert!(!introduces_the_project("It's a MISRA-ish rule for this codebase."));
    assert!(has_pronoun_subject("Now it is no-telemetry, by default false."));
}

#[test]
fn the_project_said_by_its_name_is_an_introduction() {
    use super::pointers::names_the_project;
    assert!(names_the_project(
        "reco-serving is a FastAPI service that serves our recommender.",
        "reco-serving"
    ));
    assert!(names_the_project("Roster.Api is our ASP.NET Core 8 API for shift rostering.", "Roster.Api"));
    assert!(names_the_project("The backup operator is a Kubernetes operator.", "backup-operator"));
    assert!(names_the_project("Jotter's a Kotlin Multiplatform notes app.", "jotter"));
    // What the project needs, another thing of the same name's start, a short folder name.
    assert!(!names_the_project("Grainwave needs a 'freeze' button.", "grainwave"));
    assert!(!names_the_project("reco-serving-admin is the back office.", "reco-serving"));
    assert!(!names_the_project("App is slow.", "app"));
}

#[test]
fn a_pointer_is_a_hole_unless_the_sentence_names_what_it_stands_for() {
    for hole in [
        "The entire tool should handle that automatically",
        "Don't run migrations against it",
        "We should not do that, as we handle that",
        "We should not do that, but we handle it",
        "It breaks the build, so we remove it",
        "Write the summary and keep it in the wiki",
        // The noun "our own" stands for was in the sentence before.
        "avoid inventing our own.",
        // "Through it": what the criteria run through was said before.
        "The next time we run the same criteria through it should trigger the hardcoding",
        // What was excluded, or what "it" is, was said before.
        "Everything else should be exactly the same",
        "The only thing it shouldn't do is to resolve the workspace dependencies",
        "Also the readme in there is gonna be the main readme on npm",
        "The only exception is vault's name",
        "We should not do so until the user opens the camera",
    ] {
        assert!(has_hole(hole), "{hole}");
    }
    for whole in [
        "In cloud mode we should not display in the remediation module the possibility to choose the running cli agent as we handle that.",
        "The nightly export writes to `archive/`, never touch it",
        "Never npm in this repo — it's pnpm, there's a pnpm-lock.yaml.",
        "No elaborate comments on functions: keep it to the minimal information.",
        "We use Tailwind for styles and never write our own",
        "Each service keeps its own database",
        // The second clause's pointer stands for what the first clause names.
        "Tomasz cuts the releases usually but he asked for it to be automated so he stops doing it by hand.",
        "The staging database is shared with QA, so we never reset it without asking",
    ] {
        assert!(!has_hole(whole), "{whole}");
    }
}

#[test]
fn a_code_span_is_one_name_not_clauses() {
    assert_eq!(
        kinds::clauses(
            "Verify changes with `xcodebuild test ... -only-testing:VaultTests`, `npm run build`. Ship it."
        ),
        ["Verify changes with `xcodebuild test ... -only-testing:VaultTests`, `npm run build`", "Ship it."]
    );
    // A lone backtick opens nothing.
    assert_eq!(kinds::clauses("A ` tick. Then more."), ["A ` tick", "Then more."]);
}
