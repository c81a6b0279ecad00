//! Chinese relative-date rules: 昨天, 上周四, 下个月, 去年, 三天前. Chinese has no spaces
//! between words, so the resolvers check the characters around a match to reject the
//! look-alikes (然后天气, 周期, 一下周报).

use autodream_core::rules::Hit;

use super::{DatePoint, Resolved, Rule, Whole, chinese, day, month, week, weekday_in_week, weekend, year};

/// Monday-based index of a Chinese weekday character (日 and 天 are Sunday).
fn chinese_weekday(name: &str) -> Option<i64> {
    match name {
        "一" => Some(0),
        "二" => Some(1),
        "三" => Some(2),
        "四" => Some(3),
        "五" => Some(4),
        "六" => Some(5),
        "日" | "天" => Some(6),
        _ => None,
    }
}

/// Chinese numerals up to 99 (一 … 九十九, 两 for 2), 几 ("a few") as 3, or digits.
fn chinese_count(text: &str) -> Option<i64> {
    if let Ok(n) = text.parse::<i64>() {
        return Some(n);
    }
    if text == "几" {
        return Some(3);
    }
    fn digit(c: char) -> Option<i64> {
        Some(match c {
            '一' => 1,
            '二' | '两' => 2,
            '三' => 3,
            '四' => 4,
            '五' => 5,
            '六' => 6,
            '七' => 7,
            '八' => 8,
            '九' => 9,
            _ => return None,
        })
    }
    let chars: Vec<char> = text.chars().collect();
    match chars.as_slice() {
        ['十'] => Some(10),
        [single] => digit(*single),
        ['十', units] => Some(10 + digit(*units)?),
        [tens, '十'] => Some(digit(*tens)? * 10),
        [tens, '十', units] => Some(digit(*tens)? * 10 + digit(*units)?),
        _ => None,
    }
}

/// 上 / 下 / 这 / 本 as a number of periods (上上 and 下下 are two).
fn chinese_direction(prefix: &str) -> Option<i64> {
    match prefix {
        "上上" => Some(-2),
        "上" => Some(-1),
        "这" | "本" => Some(0),
        "下" => Some(1),
        "下下" => Some(2),
        _ => None,
    }
}

/// Rejects a 上 / 下 prefix that really ends another word: 晚上 (evening), 马上
/// (at once), 一下 ("a bit", as in 看一下周报).
fn chinese_prefix_is_word_end(hit: &Hit<'_>, prefix: &str) -> bool {
    let Some(before) = hit.char_before() else {
        return false;
    };
    match prefix {
        "上" | "上上" => "晚早马路线以身网手桌加向往".contains(before),
        "下" | "下下" => "一以如两底".contains(before),
        _ => false,
    }
}

/// 前天 / 后天 that are really the ends and starts of other words: 然后天气, 之前天, 后天性.
fn chinese_day_word_is_split(hit: &Hit<'_>) -> bool {
    hit.char_before().is_some_and(|c| "之以然最先落背往向".contains(c))
        || hit.char_after().is_some_and(|c| "气性然空".contains(c))
}

pub(super) fn chinese_rules() -> Vec<Rule> {
    vec![
        chinese(r"大前天", |hit, anchor| Some(hit.whole(day(anchor, -3)?))),
        chinese(r"前天", |hit, anchor| {
            if chinese_day_word_is_split(hit) {
                return None;
            }
            Some(hit.whole(day(anchor, -2)?))
        }),
        chinese(r"昨天|昨日|昨晚|昨夜", |hit, anchor| Some(hit.whole(day(anchor, -1)?))),
        chinese(r"今天|今日|今晚|今早|今夜", |hit, anchor| Some(hit.whole(DatePoint::Day(anchor)))),
        chinese(r"明天|明日|明晚|明早", |hit, anchor| Some(hit.whole(day(anchor, 1)?))),
        chinese(r"大后天", |hit, anchor| Some(hit.whole(day(anchor, 3)?))),
        chinese(r"后天", |hit, anchor| {
            if chinese_day_word_is_split(hit) {
                return None;
            }
            Some(hit.whole(day(anchor, 2)?))
        }),
        // Weekends before weeks: 上周末 is a weekend, not 上周 followed by 末.
        chinese(r"(?:(上上|上|下下|下|这|本)个?)?(?:周|星期|礼拜)末", |hit, anchor| {
            let direction = match hit.group(1) {
                Some(prefix) => {
                    if chinese_prefix_is_word_end(hit, prefix) {
                        return None;
                    }
                    chinese_direction(prefix)?
                }
                // A bare 周末 after a measure word (每个周末, 一个周末) names no weekend.
                None if hit.char_before().is_some_and(|c| "个每些几两有多等".contains(c)) => {
                    return None;
                }
                None => 0,
            };
            Some(hit.whole(weekend(anchor, direction)?))
        }),
        // A day of a named week: 上周四, 下星期一, 这个礼拜天. The optional trailing
        // character catches 上周一次 / 下周三天 / 上周一起, where the numeral counts
        // something and the phrase is only 上周.
        chinese(
            r"(上上|上|下下|下|这|本)个?(?:周([一二三四五六日])|(?:星期|礼拜)([一二三四五六日天]))([次共直起样些切般定整阵致同律半天个位名场篇份项条件回遍年种家期])?",
            |hit, anchor| {
                let prefix = hit.group(1)?;
                if chinese_prefix_is_word_end(hit, prefix) {
                    return None;
                }
                let direction = chinese_direction(prefix)?;
                if hit.group(4).is_some() {
                    let weekday_at = hit.group_start(2).or_else(|| hit.group_start(3))?;
                    return Some(Resolved {
                        point: week(anchor, direction)?,
                        start: hit.start(),
                        end: weekday_at,
                    });
                }
                let weekday = chinese_weekday(hit.group(2).or_else(|| hit.group(3))?)?;
                Some(hit.whole(weekday_in_week(anchor, direction, weekday)?))
            },
        ),
        chinese(
            r"(上上|上|下下|下|这|本)个?(?:周|星期|礼拜)([期围边折转刊报岁长])?",
            |hit, anchor| {
                let prefix = hit.group(1)?;
                // 周期 (cycle), 周围 (around), 周报 (weekly report) ... are other words.
                if hit.group(2).is_some() || chinese_prefix_is_word_end(hit, prefix) {
                    return None;
                }
                Some(hit.whole(week(anchor, chinese_direction(prefix)?)?))
            },
        ),
        chinese(r"(上上|上|下下|下|这|本)个?月([球亮光台饼])?", |hit, anchor| {
            let prefix = hit.group(1)?;
            // 上月球 (to the moon) and friends.
            if hit.group(2).is_some() || chinese_prefix_is_word_end(hit, prefix) {
                return None;
            }
            Some(hit.whole(month(anchor, chinese_direction(prefix)?)?))
        }),
        chinese(r"大前年|前年|去年|今年|明年|后年", |hit, anchor| {
            let phrase = hit.group(0)?;
            let offset = match phrase {
                "大前年" => -3,
                "前年" => -2,
                "去年" => -1,
                "今年" => 0,
                "明年" => 1,
                _ => 2,
            };
            // 之前年度 / 以后年份: the year word is split across two words.
            if matches!(phrase, "前年" | "后年")
                && hit.char_before().is_some_and(|c| "之以然最年".contains(c))
            {
                return None;
            }
            Some(hit.whole(year(anchor, offset)?))
        }),
        chinese(
            r"(\d{1,3}|[一二两三四五六七八九十]{1,3}|几|半)\s*(天|日|周|个星期|星期|个礼拜|礼拜|个月|年)\s*(?:以前|之前|前)",
            |hit, anchor| {
                // 2023年前 is "before 2023", not "23 years ago".
                if hit.char_before().is_some_and(|c| c.is_ascii_digit()) {
                    return None;
                }
                let count = hit.group(1)?;
                let unit = hit.group(2)?;
                let point = if count == "半" {
                    match unit {
                        "年" => month(anchor, -6)?,
                        "个月" => week(anchor, -2)?,
                        _ => return None,
                    }
                } else {
                    let n = chinese_count(count)?.checked_neg()?;
                    match unit {
                        "天" | "日" => day(anchor, n)?,
                        "周" | "个星期" | "星期" | "个礼拜" | "礼拜" => week(anchor, n)?,
                        "个月" => month(anchor, n)?,
                        _ => year(anchor, n)?,
                    }
                };
                Some(hit.whole(point))
            },
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_numerals() {
        let cases = [
            ("一", 1),
            ("两", 2),
            ("十", 10),
            ("十二", 12),
            ("二十", 20),
            ("二十五", 25),
            ("几", 3),
            ("7", 7),
            ("12", 12),
        ];
        for (text, n) in cases {
            assert_eq!(chinese_count(text), Some(n), "{text}");
        }
        assert_eq!(chinese_count("十十"), None);
        assert_eq!(chinese_count("三二"), None);
    }
}
