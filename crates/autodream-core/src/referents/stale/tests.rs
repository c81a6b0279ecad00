use super::*;
use crate::referents::Runner;

/// A project that has exactly the referents it is given.
struct Fake {
    present: Vec<Referent>,
    incomplete: bool,
}

impl ProjectChecker for Fake {
    fn check(&self, _: &Path, referents: &BTreeSet<Referent>) -> Checked {
        let status = referents
            .iter()
            .map(|r| {
                let s = if self.present.contains(r) {
                    Status::Present
                } else if matches!(r, Referent::Binary(_)) {
                    Status::Unknown
                } else {
                    Status::Gone
                };
                (r.clone(), s)
            })
            .collect();
        Checked { status, files: 3, incomplete: self.incomplete.then(|| "cut short".into()), elapsed_ms: 0 }
    }
}

const TODAY: Date = Date::constant(2026, 12, 1);

fn setup(text: &str) -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let mem = tmp.path().join("mem");
    let project = tmp.path().join("project");
    std::fs::create_dir_all(&mem).unwrap();
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::write(mem.join("MEMORY.md"), "- [Deploys](deploys.md) — how we ship\n").unwrap();
    std::fs::write(mem.join("deploys.md"), text).unwrap();
    (tmp, mem, project)
}

const HEAD: &str =
    "---\nname: deploys\ndescription: how we ship\nmetadata:\n  type: project\n---\n# Deploys\n\n";
const DEPLOY: &str = "- Deploy with `scripts/deploy.sh` (2026-01-12).\n";
const NPM: &str = "- Run `npm run test:unit` before a release (2026-01-12).\n";
const RENAMED: &str = "- `scripts/old.sh` was renamed to `scripts/deploy.sh` (2026-01-10).\n";
const ENV: &str = "- Staging needs $STAGING_TOKEN set\n";
const DANA: &str = "- Ask Dana before a deploy (2026-01-12).\n";
const HEROKU: &str = "\n## Superseded\n- Staging is on Heroku (2026-01-01; replaced 2026-01-12).\n";

#[test]
fn a_fact_whose_referents_are_gone_moves_under_superseded_and_back_when_they_return() {
    let topic = [HEAD, DEPLOY, NPM, RENAMED, ENV, DANA, HEROKU].concat();
    let (_tmp, mem, project) = setup(&topic);
    let fake = Fake { present: vec![Referent::Path("scripts/deploy.sh".into())], incomplete: false };
    let report = run(&mem, &project, &fake, TODAY, true).unwrap();
    let moved: Vec<(&str, usize)> = report.moved.iter().map(|f| (f.fact.as_str(), f.line)).collect();
    assert_eq!(
        moved,
        [
            ("Run `npm run test:unit` before a release (2026-01-12).", 10),
            ("Staging needs $STAGING_TOKEN set", 12)
        ]
    );
    let text = std::fs::read_to_string(mem.join("deploys.md")).unwrap();
    let expected = [
        HEAD,
        DEPLOY,
        RENAMED,
        DANA,
        HEROKU,
        "- Run `npm run test:unit` before a release (2026-01-12; no longer in the repository as of 2026-12-01: package.json script `test:unit`).\n",
        "- Staging needs $STAGING_TOKEN set (no longer in the repository as of 2026-12-01: environment variable `STAGING_TOKEN`)\n",
    ]
    .concat();
    assert_eq!(text, expected);
    let confirmed = load_confirmed(&mem);
    assert_eq!(confirmed.referents.get("path `scripts/deploy.sh`").map(String::as_str), Some("2026-12-01"));

    // A second pass with nothing changed in the project moves nothing more.
    let again = run(&mem, &project, &fake, TODAY, true).unwrap();
    assert!(again.moved.is_empty() && again.restored.is_empty());
    assert_eq!(std::fs::read_to_string(mem.join("deploys.md")).unwrap(), expected);

    // The referents come back: both facts return to the current facts, as they read before.
    let fake = Fake {
        present: vec![
            Referent::Path("scripts/deploy.sh".into()),
            Referent::Script(Runner::Npm, "test:unit".into()),
            Referent::Env("STAGING_TOKEN".into()),
        ],
        incomplete: false,
    };
    let report = run(&mem, &project, &fake, TODAY, true).unwrap();
    assert_eq!(report.restored.len(), 2);
    assert!(report.moved.is_empty());
    let back = std::fs::read_to_string(mem.join("deploys.md")).unwrap();
    assert_eq!(back, [HEAD, DEPLOY, RENAMED, DANA, NPM, ENV, HEROKU].concat());
}

#[test]
fn nothing_moves_when_the_walk_was_cut_short_or_the_project_is_not_a_repository() {
    let topic = [HEAD, DEPLOY, NPM, ENV, HEROKU].concat();
    let (_tmp, mem, project) = setup(&topic);
    let cut = Fake { present: vec![], incomplete: true };
    let report = run(&mem, &project, &cut, TODAY, true).unwrap();
    assert!(report.moved.is_empty() && report.incomplete.is_some());
    assert_eq!(std::fs::read_to_string(mem.join("deploys.md")).unwrap(), topic);

    std::fs::remove_dir(project.join(".git")).unwrap();
    let none = Fake { present: vec![], incomplete: false };
    let report = run(&mem, &project, &none, TODAY, true).unwrap();
    assert!(report.moved.is_empty() && report.incomplete.unwrap().contains("not a git work tree"));
    assert_eq!(std::fs::read_to_string(mem.join("deploys.md")).unwrap(), topic);
}

#[test]
fn a_file_without_superseded_gets_the_heading_and_a_read_only_run_writes_nothing() {
    let text = "# Build\n- Build with `make dist` (2026-02-01).\n- Use `rg` to search\n";
    let (_tmp, mem, project) = setup(text);
    let fake = Fake { present: vec![], incomplete: false };
    let report = run(&mem, &project, &fake, TODAY, false).unwrap();
    assert_eq!(report.moved.len(), 1, "a command's binary alone never makes a fact stale");
    assert_eq!(std::fs::read_to_string(mem.join("deploys.md")).unwrap(), text);
    run(&mem, &project, &fake, TODAY, true).unwrap();
    assert_eq!(
        std::fs::read_to_string(mem.join("deploys.md")).unwrap(),
        "# Build\n- Use `rg` to search\n\n## Superseded\n\
- Build with `make dist` (2026-02-01; no longer in the repository as of 2026-12-01: Makefile target `dist`).\n"
    );
    assert!(!mem.join(CONFIRMED_FILE).exists(), "nothing present, nothing confirmed");
}

#[test]
fn a_fact_with_one_referent_still_present_stays() {
    let text = "# Tools\n- `tools/gen.py` writes `schema/out.json` (2026-02-01).\n";
    let (_tmp, mem, project) = setup(text);
    let fake = Fake { present: vec![Referent::Path("schema/out.json".into())], incomplete: false };
    assert!(run(&mem, &project, &fake, TODAY, true).unwrap().moved.is_empty());
    assert_eq!(std::fs::read_to_string(mem.join("deploys.md")).unwrap(), text);
}

#[test]
fn a_file_of_the_memory_itself_is_not_a_referent() {
    let text = "# Build\n- See `deploys.md` for the release steps (2026-02-01).\n";
    let (_tmp, mem, project) = setup(text);
    let fake = Fake { present: vec![], incomplete: false };
    let report = run(&mem, &project, &fake, TODAY, true).unwrap();
    assert!(report.moved.is_empty() && report.facts_checked == 0, "{report:?}");
    assert_eq!(std::fs::read_to_string(mem.join("deploys.md")).unwrap(), text);
}

#[test]
fn unmarking_undoes_marking() {
    for fact in ["Deploy with `x.sh` (2026-01-12).", "Set $X_Y first"] {
        let m = marked(fact, TODAY, &["path `x.sh`".into()]);
        assert!(MARKED.is_match(&m), "{m}");
        assert_eq!(unmarked(&m), fact);
    }
}
