//! Golden tables for the relative-date resolver: phrase × anchor → rendered date.
//!
//! Expected values were worked out on a calendar (2023-05-08 is a Monday, 2023-05-10 a
//! Wednesday, 2023-05-14 a Sunday, 2023-01-03 a Tuesday, 2024-02-29 a Thursday).

use autodream_offline::dates::{DatePoint, annotate, find_absolute, find_relative};
use jiff::civil::Date;

/// One golden case: in `text`, written on `anchor`, the only relative expression is
/// `phrase` and it resolves to `render`.
struct Case {
    text: &'static str,
    anchor: &'static str,
    phrase: &'static str,
    render: &'static str,
}

const fn case(text: &'static str, anchor: &'static str, phrase: &'static str, render: &'static str) -> Case {
    Case { text, anchor, phrase, render }
}

fn anchor(text: &str) -> Date {
    text.parse().unwrap_or_else(|e| panic!("bad anchor {text}: {e}"))
}

fn check_table(family: &str, table: &[Case]) {
    assert!(table.len() >= 5, "{family}: at least five cases per family");
    let mut failures = Vec::new();
    for case in table {
        let mentions = find_relative(case.text, anchor(case.anchor));
        let got: Vec<(String, String)> =
            mentions.iter().map(|m| (m.phrase.clone(), m.point.render())).collect();
        let want = vec![(case.phrase.to_string(), case.render.to_string())];
        if got != want {
            failures.push(format!("  {:?} @ {}: want {want:?}, got {got:?}", case.text, case.anchor));
        }
        for m in &mentions {
            assert_eq!(&case.text[m.start..m.end], m.phrase, "byte offsets must frame the phrase");
        }
        let once = annotate(case.text, anchor(case.anchor));
        let expected_note = format!("{} ({})", case.phrase, case.render);
        if !once.contains(&expected_note) {
            failures.push(format!("  annotate({:?}) = {once:?}, lacks {expected_note:?}", case.text));
        }
        assert_eq!(annotate(&once, anchor(case.anchor)), once, "annotating twice must change nothing");
    }
    assert!(failures.is_empty(), "{family}:\n{}", failures.join("\n"));
}

fn check_unresolved(texts: &[&str]) {
    for text in texts {
        let mentions = find_relative(text, anchor("2023-05-10"));
        assert!(mentions.is_empty(), "{text:?} should not resolve, got {mentions:?}");
    }
}

#[test]
fn english_days() {
    check_table(
        "english days",
        &[
            case("I fixed it yesterday.", "2023-05-08", "yesterday", "2023-05-07"),
            case("Last night the build broke", "2023-03-01", "Last night", "2023-02-28"),
            case("we met yesterday", "2024-03-01", "yesterday", "2024-02-29"),
            case(
                "the day before yesterday we shipped",
                "2023-01-01",
                "the day before yesterday",
                "2022-12-30",
            ),
            case("Deploy tomorrow.", "2023-12-31", "tomorrow", "2024-01-01"),
            case("due the day after tomorrow", "2024-02-28", "the day after tomorrow", "2024-03-01"),
            case("today we release", "2023-05-08", "today", "2023-05-08"),
            case("TONIGHT is the demo", "2023-05-08", "TONIGHT", "2023-05-08"),
            case("this morning the CI was red", "2023-05-08", "this morning", "2023-05-08"),
            case("this afternoon, pair on it", "2023-05-08", "this afternoon", "2023-05-08"),
            case("this evening I read the RFC", "2023-05-08", "this evening", "2023-05-08"),
            case("yesterday's standup", "2023-05-08", "yesterday", "2023-05-07"),
            case("see you tomorrow!", "2023-02-28", "tomorrow", "2023-03-01"),
        ],
    );
}

#[test]
fn english_counts_ago_and_ahead() {
    check_table(
        "english N ago / in N",
        &[
            case("3 days ago", "2023-03-02", "3 days ago", "2023-02-27"),
            case("it broke two weeks ago", "2023-05-10", "two weeks ago", "week of 2023-04-24"),
            case("a few days ago", "2023-05-10", "a few days ago", "2023-05-07"),
            case("a couple of months ago", "2023-01-15", "a couple of months ago", "November 2022"),
            case("a couple days ago", "2023-03-01", "a couple days ago", "2023-02-27"),
            case("several years ago", "2023-05-10", "several years ago", "2020"),
            case("a week ago", "2023-01-03", "a week ago", "week of 2022-12-26"),
            case("twelve months ago", "2023-05-10", "twelve months ago", "May 2022"),
            case("One year ago", "2024-02-29", "One year ago", "2023"),
            case("a year ago", "2023-01-01", "a year ago", "2022"),
            case("in 3 days", "2023-12-30", "in 3 days", "2024-01-02"),
            // A time ahead in days or weeks is a day: deadlines are set to the day.
            case("in two weeks we freeze", "2023-05-10", "in two weeks", "2023-05-24"),
            case("the release is a week from today", "2023-05-10", "a week from today", "2023-05-17"),
            case("the freeze is on Wednesday the 17th", "2023-05-10", "Wednesday the 17th", "2023-05-17"),
            case("copy is due on the 20th", "2023-05-22", "the 20th", "2023-06-20"),
            case("in a month", "2023-12-15", "in a month", "January 2024"),
            case("two days from now", "2024-02-27", "two days from now", "2024-02-29"),
            case("10 days ago", "2024-03-05", "10 days ago", "2024-02-24"),
        ],
    );
}

#[test]
fn english_weeks_months_years() {
    check_table(
        "english week/month/year",
        &[
            case("last week", "2023-05-08", "last week", "week of 2023-05-01"),
            case("last week", "2023-05-14", "last week", "week of 2023-05-01"),
            case("this week", "2023-05-14", "this week", "week of 2023-05-08"),
            case("next week", "2023-12-28", "next week", "week of 2024-01-01"),
            case("last month", "2023-01-03", "last month", "December 2022"),
            case("next month", "2023-12-15", "next month", "January 2024"),
            case("this month", "2023-05-10", "this month", "May 2023"),
            case("earlier this month", "2023-05-10", "earlier this month", "May 2023"),
            case("earlier this year", "2023-05-10", "earlier this year", "2023"),
            case("last year", "2023-01-01", "last year", "2022"),
            case("Next Year", "2023-12-31", "Next Year", "2024"),
            case("the previous month", "2024-03-31", "previous month", "February 2024"),
            case("LAST WEEK", "2024-01-01", "LAST WEEK", "week of 2023-12-25"),
        ],
    );
}

#[test]
fn english_weekends() {
    check_table(
        "english weekends",
        &[
            case("this weekend", "2023-05-10", "this weekend", "weekend of 2023-05-13"),
            case("this weekend", "2023-05-13", "this weekend", "weekend of 2023-05-13"),
            case("this weekend", "2023-05-14", "this weekend", "weekend of 2023-05-13"),
            case("last weekend", "2023-05-10", "last weekend", "weekend of 2023-05-06"),
            case("last weekend", "2023-05-14", "last weekend", "weekend of 2023-05-06"),
            case("next weekend", "2023-05-10", "next weekend", "weekend of 2023-05-20"),
            case("the coming weekend", "2023-12-28", "coming weekend", "weekend of 2023-12-30"),
        ],
    );
}

#[test]
fn english_weekdays() {
    check_table(
        "english weekdays",
        &[
            case("last Friday", "2023-05-10", "last Friday", "2023-05-05"),
            case("last Friday", "2023-05-12", "last Friday", "2023-05-05"),
            case("last saturday", "2023-05-14", "last saturday", "2023-05-13"),
            case("last Monday", "2023-01-03", "last Monday", "2023-01-02"),
            case("last Sunday", "2023-01-02", "last Sunday", "2023-01-01"),
            case("last Thursday", "2024-03-01", "last Thursday", "2024-02-29"),
            case("next Monday", "2023-05-10", "next Monday", "2023-05-15"),
            case("next Friday", "2023-05-12", "next Friday", "2023-05-19"),
            case("this Friday", "2023-05-10", "this Friday", "2023-05-12"),
            case("this Monday", "2023-05-10", "this Monday", "2023-05-08"),
            case("this coming Tuesday", "2023-12-28", "this coming Tuesday", "2024-01-02"),
        ],
    );
}

#[test]
fn chinese_days() {
    check_table(
        "chinese days",
        &[
            case("我昨天修好了", "2023-03-01", "昨天", "2023-02-28"),
            case("前天上线", "2024-03-01", "前天", "2024-02-28"),
            case("大前天开会", "2023-01-02", "大前天", "2022-12-30"),
            case("明天发布", "2023-12-31", "明天", "2024-01-01"),
            case("后天交付", "2024-02-27", "后天", "2024-02-29"),
            case("今天完成", "2023-05-08", "今天", "2023-05-08"),
            case("昨晚构建失败", "2023-01-01", "昨晚", "2022-12-31"),
        ],
    );
}

#[test]
fn chinese_weeks_and_weekends() {
    check_table(
        "chinese weeks",
        &[
            case("上周讨论过", "2023-05-08", "上周", "week of 2023-05-01"),
            case("上个星期", "2023-05-14", "上个星期", "week of 2023-05-01"),
            case("上礼拜定的", "2023-01-03", "上礼拜", "week of 2022-12-26"),
            case("这周要做完", "2023-05-14", "这周", "week of 2023-05-08"),
            case("本周", "2023-05-10", "本周", "week of 2023-05-08"),
            case("下周再说", "2023-12-28", "下周", "week of 2024-01-01"),
            case("上周一共开了三次会", "2023-05-10", "上周", "week of 2023-05-01"),
            case("周末加班", "2023-05-10", "周末", "weekend of 2023-05-13"),
            case("这个周末", "2023-05-14", "这个周末", "weekend of 2023-05-13"),
            case("上个周末", "2023-05-10", "上个周末", "weekend of 2023-05-06"),
            case("下周末", "2023-05-10", "下周末", "weekend of 2023-05-20"),
        ],
    );
}

#[test]
fn chinese_weekdays() {
    check_table(
        "chinese weekdays",
        &[
            case("上周四", "2023-05-10", "上周四", "2023-05-04"),
            case("上星期四", "2023-05-10", "上星期四", "2023-05-04"),
            case("上礼拜四我们见过", "2023-05-10", "上礼拜四", "2023-05-04"),
            case("下周一开始", "2023-05-10", "下周一", "2023-05-15"),
            case("这周五", "2023-05-10", "这周五", "2023-05-12"),
            case("上周日", "2023-01-03", "上周日", "2023-01-01"),
            case("下星期天", "2023-12-28", "下星期天", "2024-01-07"),
            case("上周四", "2024-03-04", "上周四", "2024-02-29"),
            case("下周一下午开会", "2023-05-10", "下周一", "2023-05-15"),
        ],
    );
}

#[test]
fn chinese_months_years_and_ago() {
    check_table(
        "chinese months/years/ago",
        &[
            case("上个月", "2023-01-03", "上个月", "December 2022"),
            case("下个月", "2023-12-15", "下个月", "January 2024"),
            case("这个月", "2023-05-10", "这个月", "May 2023"),
            case("本月", "2023-05-10", "本月", "May 2023"),
            case("上月的账单", "2024-03-31", "上月", "February 2024"),
            case("去年", "2023-01-01", "去年", "2022"),
            case("今年", "2023-05-10", "今年", "2023"),
            case("明年", "2023-12-31", "明年", "2024"),
            case("前年", "2023-05-10", "前年", "2021"),
            case("三天前", "2023-03-02", "三天前", "2023-02-27"),
            case("两周前", "2023-05-10", "两周前", "week of 2023-04-24"),
            case("三个月前", "2023-02-15", "三个月前", "November 2022"),
            case("一年前", "2024-02-29", "一年前", "2023"),
            case("几天前", "2023-05-10", "几天前", "2023-05-07"),
            case("5天前", "2024-03-04", "5天前", "2024-02-28"),
            case("十二个月前", "2023-05-10", "十二个月前", "May 2022"),
            case("两个星期前", "2023-01-03", "两个星期前", "week of 2022-12-19"),
        ],
    );
}

#[test]
fn vague_and_look_alike_phrases_are_not_resolved() {
    check_unresolved(&[
        "recently we moved to Postgres",
        "the other day I saw a panic",
        "lastly, run the tests",
        "the token budget was exceeded",
        "on Friday",
        "an hour ago",
        "the last weekday",
        "a while ago",
        "todays",
        "刚才提交了",
        "前几天有人说过",
        "然后天气很好",
        "这是一个周期任务",
        "看一下周报",
        "2023年前的数据",
        "每个周末都跑",
        "最近很忙",
        // How long, not when.
        "haven't talked in a few days",
        "I have not run in two weeks",
        "never been there in 3 years",
    ]);
}

#[test]
fn several_mentions_come_in_order_without_overlap() {
    let text = "Yesterday I fixed it; last week we shipped, and 昨天 was quiet. Next Monday: review.";
    let mentions = find_relative(text, anchor("2023-05-10"));
    let got: Vec<(&str, String)> = mentions.iter().map(|m| (m.phrase.as_str(), m.point.render())).collect();
    assert_eq!(
        got,
        vec![
            ("Yesterday", "2023-05-09".to_string()),
            ("last week", "week of 2023-05-01".to_string()),
            ("昨天", "2023-05-09".to_string()),
            ("Next Monday", "2023-05-15".to_string()),
        ]
    );
    for pair in mentions.windows(2) {
        assert!(pair[0].end <= pair[1].start);
    }
    assert_eq!(&text[mentions[2].start..mentions[2].end], "昨天");
}

#[test]
fn annotate_inserts_dates_and_is_idempotent() {
    let day = anchor("2023-05-08");
    let once = annotate("I fixed it yesterday, and last week we shipped.", day);
    assert_eq!(once, "I fixed it yesterday (2023-05-07), and last week (week of 2023-05-01) we shipped.");
    assert_eq!(annotate(&once, day), once);
    // The author's own date in brackets is respected.
    let authored = "we met yesterday (= 7 May 2023) to plan";
    assert_eq!(annotate(authored, day), authored);
    // A remark in brackets is not a date.
    assert_eq!(annotate("yesterday (sadly) it broke", day), "yesterday (2023-05-07) (sadly) it broke");
    assert_eq!(annotate("nothing relative here", day), "nothing relative here");
    assert_eq!(annotate("上周四讨论过", anchor("2023-05-10")), "上周四 (2023-05-04)讨论过");
}

#[test]
fn absolute_dates() {
    let cases: &[(&str, &str, &str, DatePoint)] = &[
        ("on 2023-05-08 we", "2023-06-01", "2023-05-08", DatePoint::Day(anchor("2023-05-08"))),
        ("at 2023-05-08T10:00Z", "2023-06-01", "2023-05-08", DatePoint::Day(anchor("2023-05-08"))),
        ("2023/5/8", "2023-06-01", "2023/5/8", DatePoint::Day(anchor("2023-05-08"))),
        ("on 8 May 2023.", "2023-06-01", "8 May 2023", DatePoint::Day(anchor("2023-05-08"))),
        ("May 8, 2023", "2023-06-01", "May 8, 2023", DatePoint::Day(anchor("2023-05-08"))),
        ("Sept. 3rd, 2021", "2023-06-01", "Sept. 3rd, 2021", DatePoint::Day(anchor("2021-09-03"))),
        ("in May 2023", "2023-06-01", "May 2023", DatePoint::Month { year: 2023, month: 5 }),
        ("on May 8", "2023-06-01", "May 8", DatePoint::Day(anchor("2023-05-08"))),
        ("Dec 25", "2023-05-07", "Dec 25", DatePoint::Day(anchor("2022-12-25"))),
        ("Jan 5", "2023-12-20", "Jan 5", DatePoint::Day(anchor("2024-01-05"))),
        ("July 14", "2023-05-07", "July 14", DatePoint::Day(anchor("2022-07-14"))),
        ("Feb 29", "2023-05-07", "Feb 29", DatePoint::Day(anchor("2020-02-29"))),
        ("the 14th of July", "2023-06-01", "14th of July", DatePoint::Day(anchor("2023-07-14"))),
        ("2023年5月8日", "2023-06-01", "2023年5月8日", DatePoint::Day(anchor("2023-05-08"))),
        ("2023年5月", "2023-06-01", "2023年5月", DatePoint::Month { year: 2023, month: 5 }),
        ("5月8号", "2023-06-01", "5月8号", DatePoint::Day(anchor("2023-05-08"))),
        ("since 2019 we", "2023-06-01", "2019", DatePoint::Year(2019)),
    ];
    for (text, on, span, point) in cases {
        let found = find_absolute(text, anchor(on));
        assert_eq!(found.len(), 1, "{text:?}: {found:?}");
        let (start, end, got) = found[0];
        assert_eq!(&text[start..end], *span, "{text:?}");
        assert_eq!(got, *point, "{text:?}");
    }
    for text in ["I may 8 times", "2023-13-01", "2023-02-30", "in 2048 bytes", "port 2023", "12023-05-08"] {
        let found = find_absolute(text, anchor("2023-06-01"));
        assert!(found.is_empty(), "{text:?}: {found:?}");
    }
}

#[test]
fn every_cut_of_a_mixed_text_yields_well_framed_mentions() {
    let text = "Yesterday 我们 discussed 上周四的 plan; in 3 days, 两周前 and May 8, 2023 (2023年5月8日) — last Friday.";
    let day = anchor("2023-05-10");
    let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
    for &cut in &boundaries {
        for piece in [&text[..cut], &text[cut..]] {
            for m in find_relative(piece, day) {
                assert!(m.start < m.end && piece.is_char_boundary(m.start) && piece.is_char_boundary(m.end));
                assert_eq!(&piece[m.start..m.end], m.phrase);
            }
            for (start, end, _) in find_absolute(piece, day) {
                assert!(start < end && piece.is_char_boundary(start) && piece.is_char_boundary(end));
            }
            let annotated = annotate(piece, day);
            assert!(annotated.len() >= piece.len());
        }
    }
    assert_eq!(find_relative(text, day).len(), 5);
    assert_eq!(find_absolute(text, day).len(), 2);
}

#[test]
fn renderings_are_the_ones_date_parsers_read() {
    assert_eq!(DatePoint::Day(anchor("2023-05-07")).render(), "2023-05-07");
    assert_eq!(DatePoint::Week(anchor("2023-05-01")).render(), "week of 2023-05-01");
    assert_eq!(DatePoint::Weekend(anchor("2023-05-06")).render(), "weekend of 2023-05-06");
    assert_eq!(DatePoint::Month { year: 2023, month: 5 }.render(), "May 2023");
    assert_eq!(DatePoint::Year(2023).render(), "2023");
}
