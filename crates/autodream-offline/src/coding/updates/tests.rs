//! The updates stage's tests: which statement retires which, and the values a change names.

use super::*;

#[test]
fn a_value_said_after_now_not_is_retired_when_the_facts_share_a_word() {
    let tightened = "The SLO got tightened at the platform review: p99 must be under 60 ms now, not 80.";
    assert_eq!(replaced_values(tightened), ["80"]);
    assert!(supersedes(tightened, "Latency SLO is p99 under 80 ms at the service edge."));
    assert!(!supersedes(tightened, "Coverage must stay above 80% on new code."));
    assert!(supersedes("We use pnpm now, not npm.", "Installs go through npm."));
}

#[test]
fn the_same_thing_at_another_address_is_moved() {
    let moved =
        "Kasia says pagination lands next sprint, and the dev API moved to https://dev-api.fleetco.net.";
    assert!(supersedes(moved, "Pinia stores, API for dev is https://api-dev.fleetco.io."));
    // The address said last in a line is an item of its own: the rest stays current.
    assert_eq!(
        super::super::kinds::items(
            "Fleet-admin is our Vue 3 admin: Pinia stores, vue-i18n with en/de/pl, API for dev is https://api-dev.fleetco.io"
        ),
        [
            "Fleet-admin is our Vue 3 admin: Pinia stores, vue-i18n with en/de/pl",
            "API for dev is https://api-dev.fleetco.io"
        ]
    );
    assert_eq!(
        super::super::kinds::items(
            "CI is Jenkins, job ingestd-pr, console at https://ci.acme.internal/job/x if a build fails"
        ),
        ["CI is Jenkins, job ingestd-pr, console at https://ci.acme.internal/job/x if a build fails"]
    );
    // Another thing's address stays.
    assert!(!supersedes(moved, "The design system docs are at https://ds.fleetco.io."));
    assert!(!supersedes(
        "Dashboards moved to https://grafana.acme.io.",
        "The dev API is https://api-dev.acme.io."
    ));
}

#[test]
fn a_place_called_the_old_one_is_retired() {
    let moved = "MLflow moved to http://mlflow.ml.acme.internal:5000 today; the old mlflow.ds.internal host is being decommissioned.";
    assert_eq!(replaced_values(moved), ["mlflow.ds.internal"]);
    assert!(supersedes(
        moved,
        "Tracking server is MLflow at http://mlflow.ds.internal:5000, experiment 'churn-q1'."
    ));
    // Without a change, "the old" names nothing retired.
    assert!(replaced_values("The old staging host still answers on 8080.").is_empty());
    assert!(replaced_values("The tokens are replaced with hashes before logging.").is_empty());
    assert_eq!(replaced_values("We replaced yarn with pnpm."), ["yarn"]);
}

#[test]
fn going_back_to_a_value_ends_the_move_away_from_it() {
    let moved = "We're switching the map to Mapbox — Google Maps pricing at our volume is ugly.";
    assert!(supersedes("We're going back to Google Maps.", moved));
    // The move it ends must have named the value gone back to and another of its slot; a
    // fact of the value gone back to stays.
    assert!(!supersedes("We're going back to Google Maps.", "Google Maps keys live in the vault."));
    assert!(!goes_back_from("We're going back to Google Maps.", "Mapbox tiles are cached for a day."));
}

#[test]
fn a_move_called_off_ends_the_fact_that_announced_it() {
    let moving = "Heads up: we're moving the mesh from Linkerd to Istio next sprint.";
    // Staying on the value a move would leave calls the move off, like going back to it.
    assert!(supersedes("We're staying on Linkerd.", moving));
    assert!(supersedes("Update: the Istio migration is cancelled.", moving));
    // Not a fact that only names the value, nor the move away from the value called off.
    assert!(!supersedes("The Istio migration is cancelled.", "Istio sidecars need 128 MB each."));
    assert!(!supersedes("The Linkerd migration is cancelled.", moving));
    assert!(!supersedes("We're staying on Linkerd.", "Mesh is Linkerd, pods need the inject annotation."));
    assert!(supersedes("We'll stick with Linkerd for now.", moving));
    // Where a thing stays is no change.
    assert!(!says_a_change("The session cache stays on disk."));
}

#[test]
fn old_values_are_read_off_the_announcement() {
    let cases: &[(&str, &[&str])] = &[
        ("We switched the repo from yarn to pnpm on Friday.", &["yarn"]),
        ("We moved staging off Heroku to Fly.io last week.", &["Heroku"]),
        ("We dropped Jenkins last week; CI is GitHub Actions now.", &["Jenkins"]),
        ("Atlantis is gone, we replaced it with Spacelift last week.", &["Atlantis"]),
        ("Hannah moved to the payments team, Diego is the PM for scheduling now.", &["Hannah"]),
        ("Tomasz stepped back from the project last week, Ines does the releases now.", &["Tomasz"]),
        ("Ramp v15 to 100% and remove v14 from the service entirely.", &["v14"]),
        ("We promote the API to v1beta1 and drop v1alpha1 completely.", &["v1alpha1"]),
        // An order to remove, without "entirely", is an edit of the code.
        ("Remove the debug print from the handler.", &[]),
        (
            "The quality gate changed from the default 'Sonar way' to our custom 'claims-strict' gate.",
            &["Sonar way"],
        ),
        ("We're on rev D now and rev C is retired.", &["rev C"]),
        ("Log new runs to a fresh experiment, churn-v4, instead of churn-v3.", &["churn-v3"]),
        ("Add a README into the e2e dir instead of in the global README.", &["global README"]),
        (
            "We're on uv now: add `uv run` to the quickstart instead of poetry shell.",
            &["poetry", "poetry shell"],
        ),
        ("联调环境换了，test2 已经下线，以后都用 test3。", &["test2"]),
        ("李娜调去风控团队了，支付网关现在归赵强。", &["李娜"]),
        ("ORM 从 TypeORM 换成 Prisma。", &["TypeORM"]),
        ("周四不再是窗口。", &["周四"]),
        ("改用 pnpm 了，不要再用 npm。", &["npm"]),
        ("We moved off yarn: use pnpm for everything now.", &["yarn"]),
        // Said as a change under way, and the old value in passing.
        ("We're replacing Koin with kotlin-inject.", &["Koin"]),
        ("So we're bumping MSRV to 1.80 while we're at it (was 1.74).", &["1.74"]),
        (
            "Until recently we used `go run` in .claude/settings.json for the claude hooks. The team changed this to use the entire cli in the path.",
            &["go run"],
        ),
        ("We used to deploy with Capistrano, everything ships through Kamal now.", &["Capistrano"]),
        ("跟你说个决定：moment 全部换成 dayjs。", &["moment"]),
        ("所有表都迁到 Parquet，不留 ORC。", &["ORC"]),
    ];
    assert!(supersedes(
        "另外 minSdk 提到 26，24/25 的用户不到 1% 了。",
        "这个 app 是 Jetpack Compose，minSdk 24。"
    ));
    // Moved, not replaced: the thing that moved names no old value.
    assert!(
        !replaced_values("ClickHouse 迁到新集群了，新地址 ch-cluster-b:9000。")
            .contains(&"ClickHouse".to_string())
    );
    assert!(!replaced_values("旧的 31 那台已经下线。").iter().any(|v| v.starts_with('那')));
    assert!(supersedes(
        "Until recently we used `go run` in .claude/settings.json for the hooks. The team changed this to use the cli in the path.",
        "Note the hooks are calling `go run` to run always the latest code."
    ));
    assert!(is_tentative("Alternatively, we could create a new writer instead of a separate module."));
    assert!(!is_tentative("We're replacing Koin with kotlin-inject."));
    for (text, want) in cases {
        let got = replaced_values(text);
        for w in *want {
            assert!(got.iter().any(|g| g == w), "{text}: {got:?}");
        }
    }
}

#[test]
fn versions_and_ports_replace_their_older_number() {
    assert!(supersedes("We upgraded to Java 21 across the monolith.", "We're on Java 17."));
    assert!(!supersedes("We upgraded to Java 21 across the monolith.", "Go 1.23 is the floor."));
    // The project's spelling is one value: US English after British spelling.
    assert!(supersedes(
        "Based on feedback we are changing the language from summarise to summarize - let's make sure we're using US English everywhere please.",
        "Use the british spelling."
    ));
    // The preposition after "instead of" is not the value replaced.
    assert!(!supersedes(
        "Add a README into the e2e dir instead of in the global README.",
        "Do not wrap long lines in the markdown as that ruins the rendering on GitHub."
    ));
    assert!(!supersedes(
        "We're bumping to Go 1.23 on 2026-03-10, so nothing that needs 1.24.",
        "Service listens on 8081, metrics on 9102."
    ));
    assert!(supersedes(
        "The router now listens on 4100 everywhere.",
        "Locally the router serves on port 4000."
    ));
    assert!(!supersedes("The router now listens on 4100 everywhere.", "Prometheus metrics on port 9102."));
    assert!(supersedes("我们把 Flutter 升到 3.22.2 了。", "我们用 fvm 管 Flutter 版本，锁在 3.19.6。"));
}

#[test]
fn an_old_value_memory_never_held_is_history_named_by_its_category() {
    assert_eq!(
        history_line("We moved from Contentful to Sanity last sprint.", "Contentful").as_deref(),
        Some("Headless CMS: Contentful, replaced by Sanity")
    );
    assert_eq!(
        history_line("We dropped Jenkins last week; CI is GitHub Actions now.", "Jenkins").as_deref(),
        Some("CI system: Jenkins, replaced by GitHub Actions")
    );
    // A value the vocabulary does not know would be a bare word under Superseded.
    assert_eq!(history_line("Log new runs to churn-v4 instead of churn-v3.", "churn-v3"), None);
    assert_eq!(history_line("联调环境换了，test2 已经下线。", "已经"), None);
}

#[test]
fn a_fact_that_already_retires_a_value_agrees_with_a_later_drop_of_it() {
    let decision = "Decision: we're raising the minimum from iOS 16 to iOS 17 so we can use SwiftData.";
    assert!(!supersedes("Noor signed off on dropping 16 from the design side.", decision));
    assert!(supersedes("Noor signed off on dropping 16 from the design side.", "Deployment target is 16."));
}

#[test]
fn values_match_as_whole_words() {
    assert!(holds("warehouse ch01.data.internal:9000", "ch01"));
    assert!(!holds("dbt runs use TRANSFORM_WH_M", "TRANSFORM_WH"));
    assert!(holds("dbt runs use the TRANSFORM_WH warehouse", "TRANSFORM_WH"));
    assert!(!holds("we use pnpm", "npm"));
}

#[test]
fn a_reason_names_the_value_left_and_is_no_change_of_its_own() {
    let left = vec!["mapbox".to_string()];
    let change = "We're going back to Google Maps.";
    assert!(gives_a_reason(
        "Mapbox changed their pricing again, the offline tiles aren't worth it",
        &left,
        change
    ));
    assert!(
        gives_a_reason("Mapbox is pricier than Google Maps at our volume", &left, change),
        "the new value may be named"
    );
    // Not the value left, a third value of the slot, or a change of its own.
    assert!(!gives_a_reason("The depot wants offline tiles", &left, change));
    assert!(!gives_a_reason("Mapbox is fine, but MapLibre has the offline tiles", &left, change));
    assert!(!gives_a_reason("We moved from Mapbox to Google Maps last sprint", &left, change));
    assert!(!gives_a_reason("Mapbox changed their pricing again", &[], change));
}

#[test]
fn another_variant_of_a_name_said_of_the_same_thing_is_a_change() {
    let old = "Everything runs on the TRANSFORMING_WH warehouse.";
    assert!(supersedes("Platform moved our runs to TRANSFORMING_WH_M, the medium warehouse.", old));
    assert!(supersedes(
        "We switched the experiment to churn-v4 now.",
        "Log every run to the experiment churn-v3."
    ));
    // Another name altogether, a variant said of something else, or no change said.
    assert!(!supersedes("We moved the nightly job to REPORTING_WH, the reporting warehouse.", old));
    assert!(!supersedes("We moved the cache to TRANSFORMING_WH_M, the medium instance.", old));
    assert!(!supersedes("TRANSFORMING_WH_M is the medium warehouse.", old));
    assert!(!supersedes(
        "Set ENTIRE_LOCAL_DEV=1 now to use the wrapper script.",
        "The tool reads ENTIRE_TELEMETRY from the env."
    ));
}

#[test]
fn a_chinese_list_of_facts_splits_at_full_width_commas_only_when_each_clause_names_its_thing() {
    let items = super::super::kinds::items;
    assert_eq!(
        items("这个项目是个小 KV 服务，异步运行时用 tokio，存储引擎现在是 sled"),
        ["这个项目是个小 KV 服务", "异步运行时用 tokio", "存储引擎现在是 sled"]
    );
    // "想了一下" and "生产不敢用" name nothing: they lean on the clause between them.
    assert_eq!(
        items("想了一下，sled 太久没发正式版了，生产不敢用"),
        ["想了一下，sled 太久没发正式版了，生产不敢用"]
    );
    // Two clauses are no list.
    assert_eq!(
        items("阿里云那边推荐用 ALB Ingress，nginx-ingress 要维护的东西太多"),
        ["阿里云那边推荐用 ALB Ingress，nginx-ingress 要维护的东西太多"]
    );
}
