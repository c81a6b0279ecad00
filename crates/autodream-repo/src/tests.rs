use super::*;
use autodream_core::referents::Runner;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// A small git project: a package.json, a Makefile, a cargo alias, source reading one
/// variable, an ignored folder, a branch.
fn project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let r = tmp.path();
    write(r, ".git/HEAD", "ref: refs/heads/main\n");
    write(r, ".git/refs/heads/main", "0000\n");
    write(r, ".git/packed-refs", "# pack-refs\n1111 refs/remotes/origin/release/2.x\n");
    write(r, ".gitignore", "target/\n");
    write(r, "package.json", r#"{"scripts": {"test:unit": "vitest", "lint": "eslint ."}}"#);
    write(r, "packages/web/package.json", r#"{"scripts": {"dev": "vite"}}"#);
    write(r, "Makefile", ".PHONY: deploy\ndeploy:\n\t./scripts/deploy.sh\n");
    write(r, ".cargo/config.toml", "[alias]\nxt = \"run -p xtask --\"\n");
    write(r, "scripts/deploy.sh", "#!/bin/sh\n");
    write(r, "src/config.ts", "export const url = process.env.DATABASE_URL;\n");
    write(r, "crates/core/src/lib.rs", "// lib\n");
    write(r, "target/debug/ignored.txt", "API_SECRET_IN_IGNORED\n");
    tmp
}

fn check(root: &Path, refs: &[Referent]) -> Vec<Status> {
    let set: BTreeSet<Referent> = refs.iter().cloned().collect();
    let checked = ProjectIndex::default().check(root, &set);
    assert!(checked.incomplete.is_none());
    refs.iter().map(|r| checked.of(r)).collect()
}

#[test]
fn paths_present_moved_and_ignored() {
    let tmp = project();
    let p = |s: &str| Referent::Path(s.into());
    assert_eq!(
        check(
            tmp.path(),
            &[
                p("scripts/deploy.sh"),
                p("scripts/ship.sh"),
                p("src/lib.rs"),
                p("lib.rs"),
                p("target/debug/ignored.txt"),
                p("src/"),
                p("docs/")
            ]
        ),
        [
            Status::Present,
            Status::Gone,
            Status::Present,
            Status::Present,
            Status::Present,
            Status::Present,
            Status::Gone
        ]
    );
}

#[test]
fn scripts_of_every_runner() {
    let tmp = project();
    let s = |r: Runner, n: &str| Referent::Script(r, n.into());
    assert_eq!(
        check(
            tmp.path(),
            &[
                s(Runner::Npm, "test:unit"),
                s(Runner::Npm, "dev"),
                s(Runner::Npm, "test"),
                s(Runner::Make, "deploy"),
                s(Runner::Make, "release"),
                s(Runner::Just, "lint"),
                s(Runner::Cargo, "xt"),
                s(Runner::Cargo, "nope-nope")
            ]
        ),
        [
            Status::Present,
            Status::Present,
            Status::Gone,
            Status::Present,
            Status::Gone,
            Status::Unknown,
            Status::Present,
            Status::Gone
        ]
    );
}

#[test]
fn env_vars_branches_and_binaries() {
    let tmp = project();
    let e = |s: &str| Referent::Env(s.into());
    let b = |s: &str| Referent::Branch(s.into());
    assert_eq!(
        check(
            tmp.path(),
            &[
                e("DATABASE_URL"),
                e("REDIS_URL"),
                e("API_SECRET_IN_IGNORED"),
                b("main"),
                b("release/2.x"),
                b("gh-pages")
            ]
        ),
        [Status::Present, Status::Gone, Status::Gone, Status::Present, Status::Present, Status::Gone]
    );
    assert_eq!(check(tmp.path(), &[Referent::Binary("no-such-binary-here".into())]), [Status::Unknown]);
}

#[test]
fn a_walk_cut_short_declares_nothing_gone() {
    let tmp = project();
    let index = ProjectIndex { bounds: Bounds { max_files: 2, ..Bounds::default() } };
    let set: BTreeSet<Referent> = [
        Referent::Path("scripts/ship.sh".into()),
        Referent::Env("REDIS_URL".into()),
        Referent::Script(Runner::Npm, "nope".into()),
    ]
    .into();
    let checked = index.check(tmp.path(), &set);
    assert!(checked.incomplete.is_some());
    assert!(set.iter().all(|r| checked.of(r) == Status::Unknown), "{:?}", checked.status);
}

#[test]
fn the_branch_of_a_repository_without_commits_is_its_head() {
    let tmp = tempfile::tempdir().unwrap();
    write(tmp.path(), ".git/HEAD", "ref: refs/heads/trunk\n");
    std::fs::create_dir_all(tmp.path().join(".git/refs/heads")).unwrap();
    let b = |s: &str| Referent::Branch(s.into());
    assert_eq!(check(tmp.path(), &[b("trunk"), b("main")]), [Status::Present, Status::Gone]);
}
