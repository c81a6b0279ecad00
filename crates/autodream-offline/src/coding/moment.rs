//! Sentences that read as statements but belong to the conversation of the moment.
//!
//! A long history is mostly working talk typed as plain statements. Each class here is a
//! form such a sentence takes, named with an example, and it is checked before the rules in
//! [`super::durable`] look for a fact in the sentence:
//!
//! | class | example | dropped as |
//! |---|---|---|
//! | a step in an argument | "However, accumulatedUserAdded includes edits to ALL files", "This means …", "Like it can only …", "I figure we need to …", "From what I've observed …" | not durable |
//! | a bug report, or what a run showed | "The author of the checkpoint commits is not set correctly", "The list command does not display …" | status |
//! | an estimate | "The conflict resolution shouldn't be too hard" | status |
//! | review text, by its lead or its advice | "Based on the PR changes and the function rename, …", "…, consider removing these fields" | pasted |
//! | the state of the work, or what it lacked | "We are still mid-session debugging", "There is a PR review comment", "We didn't have a local branch …" | status |
//! | a bare refusal, of what is on screen | "I don't want any padding", "…, no need to deprecate it" | one-off request |
//! | a walk through the code | "In setup.go we now call strategy.OpenRepository()" | status |
//! | a phrase without its clause | "Instead of \"Another sessions...\"", "Is currently in Preview" | not durable |
//! | a proposal weighed | "One approach is to compare …", "We could use something like …", "It would be good to …", "If we use flags, we can …" | not durable |
//! | a pointer at the work in hand | "… the session logs for each of these commits", "I do need to use that method: …", "Let's do the one here as well", "Don't give it a number" | not durable |
//! | an example, a step of the plan, a conclusion | "E.g. commit hook, …", "Then we look at 50 commits …", "… should use its own path then" | not durable |
//! | a question typed without its mark, or confusion | "What was the trigger (manual vs auto)", "\"…\" <- I don't understand what you mean" | question |
//!
//! A sentence with a standing word ("always", "never", "in this repo") is left to the rules
//! whatever its form: "However, we always squash" is a rule.

use std::sync::LazyLock;

use regex::Regex;

use crate::text::re;

use super::kinds::{Dropped, STRONG_STANDING};

/// "However, …", "This means …", "In that case …": the sentence answers the one before. "I
/// don't think …" is a doubt however it is typed ("i don't tink", "i dont thnk").
static ARGUMENT_STEP: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:however|therefore|thus|hence|otherwise|meanwhile|consequently|in that case|in this case|that said|which means|this means|that means|this way|that way|this is why|that'?s why|like (?:it|this|that|if|when)|or|which|while (?:this|that|it)|i (?:get|understand|see|know|realise|realize) that|in theory|in practice|technically|basically|essentially|looking (?:at|into|through)|i (?:don'?t|do not) (?:t(?:h?ink|hnk|hik)|believe)|i (?:figure|reckon|guess|suppose|wonder)|i (?:don'?t|do not) know (?:if |whether )?i\b|from what i(?:'ve| have)? (?:seen|observed|read|understand|can tell)|just to be sure|really,? we)\b",
    )
});
/// "E.g. commit hook, I want …": an example of the sentence before; "Then we look at 50
/// commits …", "Next I run …": a step of the plan being worked out.
static EXAMPLE_OR_STEP: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:e\.g\.|i\.e\.|for example\b|for instance\b|(?:then|next|after that|afterwards),? (?:we|i) \w+)",
    )
});
/// "The test-repo skill should use its own path then": a conclusion drawn from what was just
/// said ("… before then" is a time, not a conclusion).
static ANSWER_TAIL: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(\w+),?\s+then[.!]*$"));

fn ends_in_a_conclusion(s: &str) -> bool {
    ANSWER_TAIL.captures(s).is_some_and(|c| {
        let before = c[1].to_lowercase();
        !matches!(before.as_str(), "before" | "by" | "until" | "till" | "since" | "from" | "after")
    })
}
/// "X is not set correctly", "Y is missing the props …"; what a run showed: "The list command
/// does not display …", "Running the CI task shows a bunch of errors", "… are not cleared";
/// what goes wrong now ("Currently a segfault occurs when …") and code that has drifted ("The
/// buildQueries logic in a.go is diverged from the one in b.go").
static BUG_REPORT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:is|are|was|were|isn'?t|aren'?t) (?:not )?(?:being )?(?:set|handled|updated|shown|displayed|rendered|parsed|saved|cleaned up|detected|propagated|passed|called|reset) (?:correctly|properly|right|at all)\b|\b(?:is|are) (?:also )?missing (?:the|a|an|its|their)\b|\bsilently (?:swallowed|ignored|dropped|fails?|falls? back|fell back|skips?|skipped|overwrites?|discards?|loses?|lost)\b|\b(?:isn'?t|aren'?t|is not|are not|wasn'?t|weren'?t) (?:producing|creating|generating|writing|reading|showing|returning|working|firing|triggering|running|capturing|picking up)\b|\bshould have (?:been )?\w+(?:ed|en)\b|\b(?:does not|doesn'?t|did not|didn'?t|no longer|isn'?t|aren'?t|wasn'?t|weren'?t|is not|are not|was not|were not) (?:display|show|print|work|clear|load|appear|detect|trigger|fire|recogni[sz]e|render|respond|compile|match|update|refresh|scroll|fit|wrap|save|persist)(?:s|es|ed|ing)?\b|\b(?:shows|showed|displays|displayed|prints|printed|throws|threw|returns|returned|gives|gave) (?:me )?(?:a (?:bunch|lot|couple) of |some |an? |the |lots of |\d+ )?(?:errors?|warnings?|exceptions?|panics?|nothing|empty|wrong|garbage|no \w+)\b|\b(?:crashes|crashed|hangs|hung|errors out|errored out|(?:gets?|got|keeps? getting) stuck)\b|\bis (?:now |still )?(?:broken|failing|crashing)\b|\b(?:are|is) not (?:cleared|shown|displayed|reset|removed|called|triggered)\b|\bwhich is confusing\b|\b(?:now |then )?(?:forgott?en|lost|ignored|dropped|overwritten|skipped|missed) by our (?:logic|code|implementation)\b|\bour (?:logic|code|implementation) (?:doesn'?t|does not|fails|breaks|ignores|loses|forgets|misses)\b|^(?:currently|right now|at the moment),? (?:\S+ ){1,5}(?:occurs|happens|crashes|hangs|breaks|panics|fails|errors)\b|\b(?:is|are|has|have) (?:diverged|drifted|gotten out of sync|gone out of sync)\b",
    )
});
/// "The package was published without the dist directory", "The files were produced from the
/// local source", "publish-cask-head.yml was not called": what happened to a build, a release
/// or a run, told after the fact. A change of name or place ("was renamed to", "was moved
/// to") is news, and a purpose ("was built to …") or a maker ("… by Ana") says what the thing
/// is; both are left to the rules.
static HAPPENED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^[^,;:]{0,80}?\b(?:was|were|got|wasn'?t|weren'?t)\s+(?:(?:just|accidentally|already|then|not|never|even)\s+)*(?:published|produced|generated|deployed|released|built|pushed|uploaded|compiled|committed|triggered|reverted|overwritten|deleted|wiped|called|invoked|executed|run|fired|started|picked up)\b(?:\s+(\w+))?",
    )
});
/// "project-local, this is just a quick test", "it's only a prototype": the speaker says the
/// thing is a trial, so nothing about it lasts.
static A_TRIAL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:this|it|that)(?:'s| is| was) (?:just|only|merely) (?:a |an )?(?:quick |small |simple |first |rough )?(?:test|experiment|trial|try|demo|spike|prototype|throwaway|sandbox)\b",
    )
});
/// "Icon is at ~/Downloads/icon.png", "I put the dump in /tmp/db.sql": a file handed over
/// through a place that is emptied or personal (downloads, the desktop, a temp folder) is
/// there for this task; the project does not live there.
static HANDED_OVER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:~|\$HOME|/Users/[^/\s]+|/home/[^/\s]+|[A-Z]:\\Users\\[^\\\s]+)[/\\](?:Downloads|Desktop)\b|(?:^|[\s`'\x22(])(?:/tmp|/var/folders|/private/var/folders|%TEMP%)[/\\]",
    )
});
/// Does the sentence tell what happened to a build or a release ("… was published without
/// the dist directory")?
fn happened(s: &str) -> bool {
    HAPPENED
        .captures(s)
        .is_some_and(|c| !c.get(1).is_some_and(|w| matches!(w.as_str().to_lowercase().as_str(), "to" | "by")))
        && !super::kinds::says_a_change(s)
}
/// "今天实验室停电，板子都用不了", "我下午要去医院…": the speaker's day, said in Chinese.
static ZH_MY_DAY: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(?:今天|今早|今晚|今儿|今天上午|今天下午)|^我们?(?:今天|今早|今晚|上午|下午|晚上|明天|这周|这两天)")
});
/// Is this the speaker's day ("今天实验室停电…"), with no rule in it ("今天起…都用 v2" is one)?
pub fn is_the_speakers_day(s: &str) -> bool {
    ZH_MY_DAY.is_match(s) && !super::kinds::is_rule(s)
}
/// "We are still mid-session debugging", "I just closed this session", "There is a PR review
/// comment", "Copilot has done its review, it's left some comments": the state of the work.
static WORK_STATE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^before(?: then| that| this| the \w+)?,? [^.]*\bnow (?:it |they |this |that )?(?:takes?|is|are|runs?|loads?|fails?|crashes|hangs|shows)\b|\bI just (?:\w+ed|ran|did|made|wrote|saw|got|tried|put|sent)\b|\b(?:we|i) (?:are|am|'re|'m) still\b|^(?:(?:currently|right now|now|today),? )?(?:we|i) (?:were|was|are|am|'re|'m) (?:currently |now |still )?(?:working|looking) (?:on|in|at)\b|^(?:we|i) (?:are|am|'re|'m) (?:now |currently )?(?:reviewing|fixing|debugging|investigating|implementing|refactoring|preparing|testing|trying|wrapping up|finishing)\b|^(?:the )?fix (?:is|was|has been) (?:pushed|merged|deployed|in)\b|^there (?:is|are) (?:a|an|some|two|three|\d+) (?:new )?(?:pr|review|comment|error|bug|issue|problem|conflict|failure|failing)\b|\b(?:we|i) (?:do |still )?have (?:a |some )?(?:conflicts?|merge conflicts?|errors?|failures?|failing tests?)\b|\b(?:has|have|'s|'ve) (?:done|finished|completed) (?:its|their|his|her|the|a) (?:review|pass|run)\b|\b(?:has|have|'s|'ve) left (?:some|a few|a couple of|more|two|three|\d+) (?:comments|notes|suggestions)\b|\bsince the (?:pr|branch|issue|ticket) was (?:raised|opened|created|made|cut)\b|^(?:we|i) (?:didn'?t|did not|hadn'?t|had not) (?:have|see|get|know|notice|realise|realize)\b|^(?:we|i) (?:wasn'?t|weren'?t|was not|were not) (?:able|sure|aware)\b",
    )
});
/// "In setup.go we now call strategy.OpenRepository()": what a source file does today, read
/// out of the code (the code says it better, and it changes with the next commit).
static CODE_WALK: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^in (?:the )?`?[\w./-]+\.(?:go|rs|py|ts|tsx|js|jsx|mjs|rb|java|kt|swift|c|cc|cpp|h|hpp|cs|php|ex|exs|scala|vue|svelte)`?(?: file)?,? (?:we|it|the code|this) (?:now |currently |already |still |then |also |just )?(?:call|calls|use|uses|return|returns|set|sets|pass|passes|create|creates|check|checks|read|reads|write|writes|open|opens|close|closes|handle|handles|do|does|have|has|import|imports|load|loads|invoke|invokes)\b",
    )
});
/// "I don't want any padding": a refusal of something in front of the user, with no scope
/// to stand beyond it ("… in commit messages" would be one).
static BARE_REFUSAL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^i (?:really )?(?:don'?t|do not) (?:want|need|like) (?:any|those|these|that|this) [\w-]+(?: [\w-]+)?[.!]*$|^i (?:want|need) no [\w-]+[.!]*$|^we (?:don'?t|do not) need to \w+(?: (?:it|this|that|them|now|yet|anymore))?[.!]*$|\bno need to \w+ (?:it|this|that|them)\b",
    )
});
/// "…, which is obviously different if …": an explanation argued to the agent.
static ARGUED: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(?:which|that|this|it) is obviously\b"));
/// "shouldn't be too hard", "should be easy", "shouldn't be an issue".
static ESTIMATE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:should(?:n'?t| not)|won'?t|wouldn'?t) be (?:too |that |very |a big |much of an? )?(?:hard|difficult|complicated|an issue|a problem|a big deal|much work)\b|\bshould be (?:easy|simple|trivial|fine|straightforward|quick)\b",
    )
});
/// The lead of a review tool's or a colleague's comment.
static REVIEW_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:based on (?:the|this|these|my) (?:pr|changes|diff|code|review|analysis|above)|looking at (?:the|this|these|your) (?:code|diffs?|pr|changes?)|after reviewing|upon review|on closer inspection|the (?:pr|change|diff|patch) (?:introduces|adds|removes|modifies|changes))\b",
    )
});
/// "To reduce the risk …, consider removing these fields": a review tool's advice, wherever it
/// stands in the sentence; "If repo.Config() returns …, this can panic": its explanation.
static REVIEW_ADVICE_ANYWHERE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\bconsider (?:\w+ing)\b|^if (?:a|the|an) (?:user|developer|caller|client|contributor)\b.*?, (?:causing|resulting in|leading to)\b|\((?:e\.g\.|i\.e\.),? [^)]{10,}\)[^.]{20,}|^(?:if|when)\s+(?:`[^`]+`|[\w.]+\(\))\s+(?:returns|is|fails|panics|throws|gets|has)\b",
    )
});
/// "Instead of \"Another sessions...\"", "Is currently in Preview": a phrase that lost its
/// clause, or its subject.
static PHRASE_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)^(?:instead of|rather than|as opposed to|except for|apart from)\b[^,;]*$|^(?:is|are|was|were)\s+(?:currently|still|now|already|also|probably)\b|^(?:since|because|although|though|whereas|unless|to \w+)\b[^,;]*$|^where (?:the|a|an|this|that|it|we|you)\b[^?]*$"#,
    )
});
/// "One approach is to …", "We could use …", "Maybe we …", "If we use flags, we can …": an
/// option weighed, not chosen.
static PROPOSAL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:one|another|an?|an? (?:additional|other|further|second|third)|additional|other|further) (?:approach|option|way|idea|alternative|possibility|solution) (?:is|would be|could be|might be)\b|\bthere(?: is|'s| are) (?:also |still )?(?:an?|the|another|other) (?:approach|option|way|idea|alternative|possibility)(?:es|s)?\b|\b(?:we|you|i) (?:could|might) (?:use|do|try|add|make|just|also|maybe|probably|potentially|instead|simply|then|go)\b|\bwe would (?:add|need|have|do|use|then|just)\b|^(?:maybe|perhaps|what if)\b|^it would be (?:good|nice|great|better|cool) to\b|^(?:we )?need (?:a|an|to have a) (?:little |quick |small |more robust )?(?:patch|fix|solution|way|workaround)\b|^we need to have a\b|^if we [^,;]{3,80},? we (?:can|could|would|might)\b|\b(?:we|you) (?:may|might) want to\b|\bi(?:'?m| am| was) (?:thinking (?:of|about|to|that|we)|considering|toying with)\b",
    )
});
/// "… for each of these commits", "use that method", "this branch adds …", "the one here",
/// "handle all 3 Polish items", "clean those up", "in last changes": the sentence is about a
/// piece of the work in front of the user, which a later session cannot see. (The project itself is no such piece: "this repo", "this codebase" are scope.)
static WORK_IN_HAND: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:this|these|those)\s+(?:\w+\s+)?(?:branch|branches|pr|prs|pull request|commits?|changes?|diff|method|function|file|files|tests?|output|regex|pattern|conversion|worktree|sessions?|feedback|script|stuff|issue|bug|part|step|approach|fix|line|lines|call|field|explain|review|comment|version|plan|task|ticket|error|case)\b|(?:^|\b(?:to|for|in|on|of|with|from|use|at|by)\s+)that\s+(?:\w+\s+)?(?:branch|pr|commit|change|method|function|file|test|output|checkpoint|session|script|issue|bug|part|step|fix|line|call|field|version|plan|task|ticket|error)\b|\bthe one here\b|\b(?:handle|do|fix|execute|implement|address|tackle|apply|review|run) (?:all|both) (?:of )?(?:the )?(?:\d+|two|three|four|five)\b|\beach one\b|\b(?:work on|handle|do|fix|finish|tackle) the rest\b|\b(?:clean|tidy|fix|sort) (?:those|these|them|it) up\b|\b(?:fix|handle|do|check|delete|remove) all[.!]?$|\b(?:in|with|since|after|before) (?:the |my |our |your )?(?:last|latest|recent) (?:changes?|commits?|prs?|runs?|builds?|release|deploy(?:ment)?)\b|\b(?:issues?|bugs?|errors?|problems?|cases?|ones|things) like (?:this|these|that|those)\b|\b(?-i:Session|Step|Case|Attempt|Run|Lane|Scenario) \d+\b|\b(?:a|the) (?:new|old|other|first|second|last|same|previous|next) one\b|^(?:\S+\s+){0,2}(?:on|in) the (?:pr|pull request|ticket|issue)\b|\b(?:continue|stop|start) here\b|^(?:please )?(?:don'?t|do not) \w+ (?:it|them)\b",
    )
});
/// "What was the trigger (…)": a question without its mark; "\"…\" <- I don't understand what
/// you mean": the user's confusion about what the agent wrote asks a question too.
static BARE_QUESTION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:what|which|who|why|how|where|when) (?:was|is|are|were|do|does|did|should|would|could|can|will)\b|\bi (?:don'?t|do not) (?:understand|get) (?:what|why|how|this|that|it)\b|\bnot sure what you mean\b|\bwhat do you mean\b",
    )
});

/// "You have an active Claude Code session", "You're on the old branch": the agent's situation
/// right now, told to it.
static YOUR_SITUATION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^you(?:'re| are| have| 've got| have got) (?:an? |the |no |some |two |\d+ )?(?:active|open|running|current|new|pending|uncommitted|unsaved|old|stale|wrong|local|unpushed|failing|broken)\b|^you(?:'re| are) (?:on|in) (?:the|a|an|this) (?:\w+ )?(?:branch|worktree|directory|folder|session)\b",
    )
});
/// "You marked issue 950 for deletion but that's a useful feature": what the agent did in this
/// session, told back to it.
static YOU_DID: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^you (?:just |already |also |accidentally )?(?:\w{2,}ed|did|made|wrote|put|set|left|broke|took|forgot|missed|ran|built|sent)\b",
    )
});
/// Verbs ending in "ed" that are no past tense ("you need", "you proceed"), and "you used to",
/// which tells a habit.
static NOT_WHAT_YOU_DID: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^you (?:need|proceed|succeed|exceed|embed|feed|seed|speed|used to)\b"));
/// "…, but we use pnpm here": what the user says against what the agent did is how things are.
static HOW_WE_DO_IT: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:we|our)\b|\b(?:in this (?:repo|project|codebase)|here)\b"));
/// "Summaries are extracted from the transcript via extractLastAssistantMessage": what the
/// code does, told by the function that does it (a function's name in camelCase or snake_case,
/// or a call), with no person and no rule: the code says it.
static THROUGH_A_FUNCTION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?i:[\w ]{0,60}?\b(?:is|are|was|were|gets?|got) \w+ed\b[^.;]{0,80}?\b(?:via|through|by calling|using|with|in|from))\s+`?(?:[a-z]+[A-Z]\w*|[a-z]+_[a-z_]+|\w+\(\))`?",
    )
});
/// "Seems the server is not correct", "It looks like the cache is stale", "Apparently …": an
/// impression of the moment, not a fact.
/// "I dont get the metal panel idea", "i dont really like the prose for the opening story":
/// the user's reaction to what the agent just showed. A way named instead ("I don't like the
/// builder here, use plain structs") or a standing word makes it a preference.
static REACTION_TO_THE_THING: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:i|we)\s+(?:really\s+|just\s+|honestly\s+)?(?:don'?t|do not)\s+(?:really\s+)?(?:like|love|get|understand)\s+(?:the|this|that|these|those|how|your|it|them|any of)\b",
    )
});
static A_WAY_INSTEAD: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\binstead\b|\brather\b|\bprefer|[,;:—–-]\s*(?:just\s+)?(?:use|go with|stick to|keep)\b")
});
static IMPRESSION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:it |this |that )?(?:seems|looks like|appears|sounds like)\b|^appar[ae]nte?ly\b|^(?:i (?:noticed|saw|see|can see|could see|found|notice|realised|realized))\b|, i (?:can|could) see\b",
    )
});
/// "The dogfood https://…/screenshots/03-detail.png shows a worse design": what a screenshot
/// shows is the screen of the moment: an image linked by its address, or a screenshot's file.
/// An image in the project's tree ("the logo is assets/logo.png") and where screenshots go
/// ("screenshots for the README live in docs/screenshots/") are left alone.
static A_SCREENSHOT: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\bhttps?://\S+\.(?:png|jpe?g|gif|webp)\b|\S*screen[- _]?shots?\S*\.(?:png|jpe?g|gif|webp)\b")
});
/// "… the text area in focus (image 11) pushing everything up", "If you watch the video
/// ScreenRecording_02-14.MP4 you can see that it never gets past 40%": what the user shows
/// of the moment, the images and recordings they attached, whatever words say it ("never"
/// here is what the recording shows).
static SHOWN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\((?:see |in |on )?(?:image|img|screenshot|pic|picture|video)s? ?#?\d+(?:\s*(?:,|and|&|-)\s*#?\d+)*\)|\b(?:see|in|on) (?:the )?(?:image|screenshot|video) ?#?\d+\b|\b(?:watch|see|in) the (?:video|recording|screen ?recording)\b|\S+\.(?:mp4|mov|webm)\b",
    )
});
/// "If I use Mistral, the results are not that great", "When using the share extension adding
/// lots of files, the files don't get synced": what the user saw when they tried something, a
/// report of the moment ("If we …" often states a rule, and is left to them; so does "When
/// using the API, always …", which a standing word keeps).
static TRIED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:but |and )?(?:if|when) i (?:use|try|run|open|click|do|go|test|call|start|load|type|enter|select|switch)\b|^(?:but |and )?(?:when|while|after) (?:using|trying|adding|opening|clicking|tapping|running|testing|uploading|importing|selecting|scrolling|pressing|setting up)\b[^,]{0,120},",
    )
});
/// "For this data we need to have it in a table": work asked for in the middle of a sentence.
static NEED_TO_MIDWAY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^.{0,80}?\b(if |when |whenever |unless )?(?:we|you) (?:still |also |first |then |now |just )?(?:need|have) to ([a-z-]+)\b",
    )
});

fn asks_for_work_midway(s: &str) -> bool {
    // "… if you need to check anything there" is a condition, not a request.
    NEED_TO_MIDWAY.captures(s).is_some_and(|c| {
        let verb = c[2].to_lowercase();
        c.get(1).is_none() && super::kinds::is_verb(&verb) && verb != "be" && !STRONG_STANDING.is_match(s)
    })
}
/// A question asked inside a sentence that started as a statement ("We have open PRs, are any
/// of them stale", "… if we want traces do you think that's going to require much code").
static EMBEDDED_QUESTION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:do you think|don'?t you think|what do you think|doesn'?t that|isn'?t that|wouldn'?t that|are any of (?:them|these|those)|is (?:it|this|that) (?:possible|ok|okay|fine|correct|right|true|worth)|(?:can|could|should|shall) (?:we|you|i) (?:also |just |maybe )?(?:use|do|add|make|have|get|try|go|keep|remove|change|move|run|check|see|skip|drop|switch)|how (?:are|do|does|can|should|would|is) (?:we|you|they|i|it|the|this|that|multiple|these|those)|why (?:are|is|do|does|don'?t|doesn'?t|did) (?:we|you|they|it|the|this|that)|what (?:would|should|could|do|does|did|can|will) (?:we|you|they|i|it|the|this|that))\b",
    )
});
/// "I meant for the CLI …", "If so, we can …", "WE previously had …": a clarification of what
/// was just said, a conclusion from it, the state the work was in.
static CLARIFICATION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:i (?:meant|mean)|what i meant|if (?:so|not)|in that case)\b|^(?:we|i) (?:previously|used to|once|originally) (?:had|have|did|used|were|was)\b",
    )
});
/// "It should be worktree + the new changes of session 2", "If they're the same, Created should
/// be false": how the work in hand should come out, said as an obligation of a thing. What
/// forbids ("should not"), holds every case ("any", "every"), or sets one value against another
/// ("…, not just \"Rule\"") is left to the rules. "should" is read however it was typed
/// ("they shoul have a clickable link").
static SPECIFIES: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\b(?:should|shoul|shoud|shuold|shold|sould|needs to|need to) (?:be (?:false|true|null|empty|zero|\d|`|"|the same|set to|enabled|disabled|shown|hidden|displayed|visible|called|named|worktree)|have|show|send|return|look|go|use|read|display|point|contain|include|work|happen|stay|get|run|appear|say|print|write|call|match|become|remain)\b"#,
    )
});
static FORBIDS_OR_CONTRASTS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:should(?:n'?t| not| never)|not just|not only|, not |instead of|rather than|any|every|each|all|wherever|whenever)\b|^(?:we|you|i)\b",
    )
});

fn specifies_the_work(s: &str) -> bool {
    SPECIFIES.is_match(s) && !FORBIDS_OR_CONTRASTS.is_match(s)
}

/// "… then eventually, maybe, writes in the README": a guess inside a statement.
/// "… this is kind of the main entry point": a hedge after the verb says the same.
static GUESS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:maybe|perhaps|probably|possibly|presumably|idk+|i dunno|dunno)\b|\b(?:is|are|was|were|it'?s|that'?s|this'?s) (?:kind|sort) of\b|\b(?:it|that|this|they|there|which) (?:also )?must have (?:been|had|come|gone|happened|changed|broken)\b|\bthere (?:also )?(?:must|has to|have to) be (?:some |more |other |a few )?(?:bugs?|issues?|problems?|errors?|leftovers?|something)\b",
    )
});

/// "When CheckpointCount is reset to 0 but PromptAttributions keeps old entries, subsequent
/// checkpoints append …": how the code behaves in a case, described — a bug being chased or a
/// behaviour being designed. The code will say it; a rule says what to do ("If a build fails,
/// check …") or what must hold, and is left to the rules.
static CASE_DESCRIBED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:if|when|once|after|as soon as) (?:the |a |an )?(?:[\w.()`-]+ ){0,6}(?:is|are|was|were|has|have|gets?|got|retains?|keeps?|becomes?|returns?|fails?|changes?|exists?)\b[^,]{0,80}, (?:(?:the|a|an|all|any|subsequent|every|each|its|their|our) )?(?:[\w.()`-]+ ){0,3}(?:is|are|gets?|append|appends|returns?|stays?|keeps?|becomes?|breaks?|fails?|loses?|uses?|reads?|writes?|shows?|points?)\b",
    )
});

/// Text cut out of a quotation or a list: an odd number of straight double quotes ('If you
/// have access to the server"'), or a closing parenthesis before any opening one ("8i48KY) can
/// be accessed at …").
pub fn is_a_cut_piece(s: &str) -> bool {
    if s.matches('"').count() % 2 == 1 {
        return true;
    }
    // A smiley is no parenthesis: "please use the british spelling :)".
    static SMILEY: LazyLock<Regex> = LazyLock::new(|| re(r"[:;=8xX]-?[()]|[()]-?[:;=]"));
    let s = SMILEY.replace_all(s, "");
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    // "1) …", "a) …": a list's label, not a cut.
                    return s.split_whitespace().next().is_none_or(|w| w.len() > 2);
                }
            }
            _ => {}
        }
    }
    false
}

/// Why the sentence is of the moment, or `None` when it is left to the rules.
pub fn of_the_moment(sentence: &str) -> Option<Dropped> {
    let s = sentence.trim();
    // The words a code span holds are a name, not the user's: "the `… policy …` test fails"
    // makes no rule.
    let own_words = crate::text::without_code_spans(s);
    // A phrase without its clause is no statement, whatever words it holds ("To hide this
    // notice in the future"); an aside in parentheses is no clause of its own ("Since X (A,
    // B, etc.)" is one phrase).
    static ASIDE: LazyLock<Regex> = LazyLock::new(|| re(r"\([^()]*\)"));
    let bare = ASIDE.replace_all(s, "");
    if PHRASE_ONLY.is_match(bare.trim()) || is_a_cut_piece(s) {
        return Some(Dropped::NotDurable);
    }
    // A standing word in quotes is mentioned, not meant: "… ensure it's definitely \"always\"
    // addressed".
    static QUOTED_WORD: LazyLock<Regex> = LazyLock::new(|| re(r#"["'“‘]\w+["'”’]"#));
    // "Just to be sure, the date … never changes": checking an understanding, whatever
    // standing word the checked claim holds.
    static CHECKING: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)^(?:just to (?:be sure|confirm|double[- ]check|clarify)|to be clear|if i understand (?:it |this )?correctly)\b",
        )
    });
    if CHECKING.is_match(s) {
        return Some(Dropped::NotDurable);
    }
    if SHOWN.is_match(s) {
        return Some(Dropped::Status);
    }
    if STRONG_STANDING.is_match(&QUOTED_WORD.replace_all(&own_words, "")) {
        return None;
    }
    if REVIEW_LEAD.is_match(s) {
        return Some(Dropped::Pasted);
    }
    if BARE_QUESTION.is_match(s) || EMBEDDED_QUESTION.is_match(s) {
        return Some(Dropped::Question);
    }
    // A guess in the main clause; one in a tail after a dash ("…, Ines does the releases now
    // — she'll probably ping you") leaves the statement before it.
    let main_clause = s.split([';', '—', '–']).next().unwrap_or(s).split(" - ").next().unwrap_or(s);
    if CLARIFICATION.is_match(s) || GUESS.is_match(main_clause) {
        return Some(Dropped::NotDurable);
    }
    if ARGUMENT_STEP.is_match(s)
        || EXAMPLE_OR_STEP.is_match(s)
        || ends_in_a_conclusion(s)
        || PROPOSAL.is_match(s)
        || ARGUED.is_match(s)
    {
        return Some(Dropped::NotDurable);
    }
    if REVIEW_ADVICE_ANYWHERE.is_match(s) {
        return Some(Dropped::Pasted);
    }
    if BARE_REFUSAL.is_match(s) {
        return Some(Dropped::Request);
    }
    if BUG_REPORT.is_match(s)
        || ESTIMATE.is_match(s)
        || WORK_STATE.is_match(s)
        || CODE_WALK.is_match(s)
        || IMPRESSION.is_match(s)
        || REACTION_TO_THE_THING.is_match(s) && !A_WAY_INSTEAD.is_match(s)
        || TRIED.is_match(s)
        || YOUR_SITUATION.is_match(s)
        || YOU_DID.is_match(s) && !NOT_WHAT_YOU_DID.is_match(s) && !HOW_WE_DO_IT.is_match(s)
        || A_SCREENSHOT.is_match(s)
        || HANDED_OVER.is_match(s)
        || happened(s)
    {
        return Some(Dropped::Status);
    }
    if asks_for_work_midway(s) || specifies_the_work(s) {
        return Some(Dropped::Request);
    }
    if CASE_DESCRIBED.is_match(s) && !super::pasted::has_a_person(s) && !super::kinds::is_rule(s) {
        return Some(Dropped::NotDurable);
    }
    if THROUGH_A_FUNCTION.is_match(s) && !super::pasted::has_a_person(s) {
        return Some(Dropped::Pasted);
    }
    if WORK_IN_HAND.is_match(s) || A_TRIAL.is_match(s) {
        return Some(Dropped::NotDurable);
    }
    None
}

#[cfg(test)]
mod tests;
