//! The API engine's part of the dream prompt: the "Tools and limits" section that describes
//! our own tools (`api/tools.md`), with the programs Bash may run. The rest of the prompt is
//! shared with the claude engine ([`crate::prompt`]).

use std::path::Path;

use autodream_core::engine::DreamContext;

use super::tools::bash::ALLOWED_PROGRAMS;
use crate::prompt::{Prompt, PromptInputs, build_prompt};

const TOOLS_TEMPLATE: &str = include_str!("tools.md");

/// The "Tools and limits" section for our tools.
pub fn tools_section() -> String {
    TOOLS_TEMPLATE.replace("{{bash_programs}}", &ALLOWED_PROGRAMS.join(", "))
}

/// The dream prompt for our tools, which see the real memory dir (served from staging).
pub fn api_prompt(ctx: &DreamContext<'_>, project_dir: Option<&Path>) -> Prompt {
    let section = tools_section();
    build_prompt(&PromptInputs::of_dream(ctx, ctx.memory_dir, project_dir, &section))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompt::approx_tokens;
    use crate::prompt::fixture::fixed_prompt;

    #[test]
    fn the_system_prompt_snapshot() {
        let prompt = fixed_prompt(true, &tools_section());
        insta::assert_snapshot!("system_prompt", prompt.system);
    }

    #[test]
    fn the_section_names_the_bash_programs() {
        let prompt = fixed_prompt(true, &tools_section());
        assert!(
            prompt.system.contains("Bash runs one read-only program (ls, cat, head,"),
            "{}",
            prompt.system
        );
        assert!(prompt.system.contains("the transcripts and the project. Paths outside"));
        assert!(!prompt.system.contains("{{"));
    }

    #[test]
    fn the_prompt_size_is_reported() {
        let prompt = fixed_prompt(true, &tools_section());
        let tokens = prompt.approx_tokens();
        println!(
            "prompt size: about {tokens} tokens (system {} + task {})",
            approx_tokens(&prompt.system),
            approx_tokens(&prompt.task)
        );
        // A prompt that grows past this costs every dream on every turn; keep it lean.
        assert!((1_000..4_000).contains(&tokens), "prompt is about {tokens} tokens");
    }
}
