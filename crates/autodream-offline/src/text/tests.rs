//! The text toolkit's tests: words, sentences, keys, commonness and slugs.

use super::*;

#[test]
fn words_keep_inner_apostrophes_and_hyphens() {
    let ws: Vec<_> = words("I'm into sci-fi, don't ask!").iter().map(|w| w.text).collect();
    assert_eq!(ws, ["I'm", "into", "sci-fi", "don't", "ask"]);
    let ws: Vec<_> = words("- leading dash and trailing-").iter().map(|w| w.text).collect();
    assert_eq!(ws, ["leading", "dash", "and", "trailing"]);
}

#[test]
fn sentences_split_at_terminators_but_not_at_abbreviations_or_numbers() {
    let s = split_sentences("I met Dr. Smith at 3.30 today. It was great! Was it? Yes.");
    assert_eq!(s, ["I met Dr. Smith at 3.30 today.", "It was great!", "Was it?", "Yes."]);
    let s = split_sentences("J.K. Rowling wrote it. \"Brave\" is a song.\" Next");
    assert_eq!(s, ["J.K. Rowling wrote it.", "\"Brave\" is a song.\"", "Next"]);
    let s = split_sentences("我昨天去了北京。今天很累！好");
    assert_eq!(s, ["我昨天去了北京。", "今天很累！", "好"]);
    assert_eq!(split_sentences("one\ntwo"), ["one", "two"]);
    // A terminator inside an aside that closes ends no sentence; one left open does.
    let s = split_sentences("Notes are admonitions (!!! warning), never bold caps. Next one.");
    assert_eq!(s, ["Notes are admonitions (!!! warning), never bold caps.", "Next one."]);
    // "etc." ends a list; it ends the sentence only when a sentence opener follows.
    let s = split_sentences("Comments are added to functions, etc. I want fewer of them.");
    assert_eq!(s, ["Comments are added to functions, etc.", "I want fewer of them."]);
    let s = split_sentences("Tools like Go, Rust etc. Python too.");
    assert_eq!(s, ["Tools like Go, Rust etc. Python too."]);
    let s = split_sentences("An aside (never closed. Then more.");
    assert_eq!(s, ["An aside (never closed.", "Then more."]);
    // A period inside a code span is the code's; a lone backtick opens no span.
    let s = split_sentences("Run `xcodebuild test ... -only-testing:VaultTests` first. Then ship.");
    assert_eq!(s, ["Run `xcodebuild test ... -only-testing:VaultTests` first.", "Then ship."]);
    let s = split_sentences("A lone ` here. Next.");
    assert_eq!(s, ["A lone ` here.", "Next."]);
}

#[test]
fn dots_between_words_part_clauses_only_where_the_writer_uses_them_so() {
    // Twice in a line is the writer's way of ending a clause.
    let s = split_sentences("so far we have a planet..and we have things to find..but my goal is bigger");
    assert_eq!(s, ["so far we have a planet", "and we have things to find", "but my goal is bigger"]);
    // Once, before a word that opens a clause; a number may end the clause before.
    let s = split_sentences("what would we do that warrants a recap..so far level 1 is enough.");
    assert_eq!(s, ["what would we do that warrants a recap", "so far level 1 is enough."]);
    assert_eq!(
        split_sentences("For level 2..we can have more items"),
        ["For level 2", "we can have more items"]
    );
    // A clause a subordinate word opens stays with the clause it leans on.
    let s = split_sentences(
        "level 1 is unclear..if you dont read instructions..which most people dont..lets fix it",
    );
    assert_eq!(
        s,
        ["level 1 is unclear..if you dont read instructions..which most people dont", "lets fix it"]
    );
    // A range and a spread are no such dots.
    for kept in [
        "Compare main..HEAD before the release.",
        "Run git log origin/main..feature to see it.",
        "Diff origin/main..feature and upstream/dev..topic first.",
        "Pass the rest as ...args to the handler.",
        "Pages 1..10 are done.",
    ] {
        assert_eq!(split_sentences(kept), [kept], "{kept}");
    }
}

#[test]
fn intensifiers_are_dropped_outside_quotes_and_titles() {
    assert_eq!(
        drop_intensifiers("I really love it and it was totally worth it."),
        "I love it and it was worth it."
    );
    assert_eq!(
        drop_intensifiers("We read \"really good stories\" by Just Mercy."),
        "We read \"really good stories\" by Just Mercy."
    );
    assert_eq!(drop_intensifiers("It was great, really."), "It was great, really.");
    assert_eq!(drop_intensifiers("Actually, it works."), "Actually, it works.");
    assert_eq!(drop_intensifiers("It was really really good."), "It was good.");
    assert!(matches!(drop_intensifiers("Nothing to drop."), std::borrow::Cow::Borrowed(_)));
}

#[test]
fn clauses_split_at_dashes_conjunctions_and_opening_commas_but_not_lists() {
    let c =
        split_clauses("Caroline went to a support group yesterday and it was so powerful, but it was long.");
    assert_eq!(
        c,
        [
            ("", "Caroline went to a support group yesterday"),
            (" ", "and it was so powerful"),
            (", ", "but it was long.")
        ]
    );
    let c = split_clauses("I took the kids to the beach and I loved it so much.");
    assert_eq!(c, [("", "I took the kids to the beach"), (" ", "and I loved it so much.")]);
    // Read back, the subject's name stands where "I" was said and splits the same.
    let c = split_clauses_about("Mel took the kids to the beach and Mel loved it so much.", Some("Mel"));
    assert_eq!(c, [("", "Mel took the kids to the beach"), (" ", "and Mel loved it so much.")]);
    let c = split_clauses("It felt like home when we got to the lake house.");
    assert_eq!(c, [("", "It felt like home"), (" ", "when we got to the lake house.")]);
    // A compound subject or a list after a bare "and" stays whole.
    let c = split_clauses("My husband and I went camping with the kids and the dog.");
    assert_eq!(c, [("", "My husband and I went camping with the kids and the dog.")]);
    let c = split_clauses(
        "This necklace is special - a gift from my grandma, it stands for love, faith and strength.",
    );
    assert_eq!(
        c,
        [
            ("", "This necklace is special"),
            (" - ", "a gift from my grandma"),
            (", ", "it stands for love, faith and strength.")
        ]
    );
    // Attributed text splits where the original did.
    assert_eq!(
        split_clauses_about("Jo adopted a puppy last week, and Jo works as a barista.", Some("Jo")).len(),
        split_clauses("I adopted a puppy last week, and I work as a barista.").len()
    );
    // A list keeps its last item.
    assert_eq!(
        split_clauses("Seeing their growth, improvement, and confidence is so fulfilling."),
        [("", "Seeing their growth, improvement, and confidence is so fulfilling.")]
    );
    // Too short to stand alone: "Yes, I did" stays whole.
    assert_eq!(split_clauses("Yes, I did it."), [("", "Yes, I did it.")]);
    // Joining the pieces gives the sentence back.
    assert_eq!(
        split_clauses("She quoted \"Turn on the light - happiness hides\" often."),
        [("", "She quoted \"Turn on the light - happiness hides\" often.")]
    );
    let s = "I love it - really, so much so I went twice, which was fun.";
    let joined: String = split_clauses(s).iter().map(|(sep, c)| format!("{sep}{c}")).collect();
    assert_eq!(joined, s);
}

#[test]
fn commonness_tiers_and_inflections() {
    assert_eq!(commonness("the"), Commonness::Function);
    assert_eq!(commonness("Awesome"), Commonness::Function);
    assert_eq!(commonness("feelings"), Commonness::Function);
    assert_eq!(commonness("people"), Commonness::Function);
    assert_eq!(commonness("kids"), Commonness::Common);
    assert!(commonness("guitars") >= Commonness::Frequent);
    assert!(surprise_of_key("necklace") > surprise_of_key("guitar"));
    assert!(surprise_of_key("guitar") > surprise_of_key("dog"));
    assert_eq!(surprise_of_key("zzyzx"), UNKNOWN_SURPRISE);
    assert_eq!(commonness("kundalini"), Commonness::Rare);
    assert_eq!(commonness("2023"), Commonness::Rare);
}

#[test]
fn cjk_is_compared_by_bigrams() {
    assert_eq!(cjk_bigrams("我喜欢猫"), ["我喜", "喜欢", "欢猫"]);
    assert_eq!(cjk_bigrams("a猫b"), ["猫"]);
    let toks = compare_tokens("Use 北京 maps");
    assert_eq!(toks, ["use", "maps", "北京"]);
}

#[test]
fn slugs_are_file_safe() {
    assert_eq!(slug("Caroline"), "caroline");
    assert_eq!(slug("Mary Jane O'Neil"), "mary-jane-o-neil");
    assert_eq!(slug("张伟"), "张伟");
    assert_eq!(slug("!!"), "topic");
}

#[test]
fn code_spans_are_left_out_of_the_words_a_rule_reads() {
    assert_eq!(
        without_code_spans("The `respects failOnDrift=false policy when drift exists` test fails"),
        "The `x` test fails"
    );
    // Two spans, and a lone backtick that opens nothing.
    assert_eq!(without_code_spans("Run `a` then `b c`, not ` alone"), "Run `x` then `x`, not ` alone");
    assert_eq!(without_code_spans("No span here"), "No span here");
}
