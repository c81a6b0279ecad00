//! The options every command understands, and what they become: `autodream_core`'s
//! [`Overrides`].
//!
//! The options are not declared here: clap's arguments are made from the one table in
//! `autodream_core::overrides` ([`GLOBAL_FLAGS`]), the same table the hook's own parser, the
//! worker's command line and the installed hooks are made from.

use std::ffi::OsString;

use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};

use autodream_core::Overrides;
use autodream_core::overrides::GLOBAL_FLAGS;

/// Options every command understands.
#[derive(Debug, Clone, Default)]
pub struct GlobalArgs(pub Overrides);

impl std::ops::Deref for GlobalArgs {
    type Target = Overrides;
    fn deref(&self) -> &Overrides {
        &self.0
    }
}

impl From<&GlobalArgs> for Overrides {
    fn from(g: &GlobalArgs) -> Self {
        g.0.clone()
    }
}

impl Args for GlobalArgs {
    fn augment_args(cmd: Command) -> Command {
        GLOBAL_FLAGS.iter().fold(cmd, |cmd, f| {
            let action = if f.repeatable { ArgAction::Append } else { ArgAction::Set };
            cmd.arg(
                Arg::new(f.id)
                    .long(f.long.trim_start_matches('-'))
                    .value_name(f.value_name)
                    .help(f.help_line())
                    .global(true)
                    .action(action)
                    .value_parser(clap::value_parser!(OsString)),
            )
        })
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for GlobalArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut global = GlobalArgs::default();
        global.update_from_arg_matches(matches)?;
        Ok(global)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        for f in GLOBAL_FLAGS {
            if let Some(values) = matches.get_many::<OsString>(f.id) {
                for value in values {
                    self.0.give(f.id, value.clone());
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use crate::cli::Cli;

    #[test]
    fn every_option_of_the_table_is_a_global_option_of_every_command() {
        let cmd = Cli::command();
        for f in autodream_core::overrides::GLOBAL_FLAGS {
            let arg = cmd.get_arguments().find(|a| a.get_id() == f.id).unwrap_or_else(|| panic!("{}", f.id));
            assert!(arg.is_global_set(), "{}", f.id);
            assert_eq!(arg.get_long(), Some(f.long.trim_start_matches('-')));
        }
        let cli = Cli::try_parse_from([
            "autodream",
            "--memory-dir",
            "/m",
            "status",
            "--set",
            "min_hours=1",
            "--set=min_sessions=2",
            "--current-session",
            "abc",
        ])
        .unwrap();
        assert_eq!(cli.global.memory_dir.as_deref(), Some(std::path::Path::new("/m")));
        assert_eq!(cli.global.set, ["min_hours=1", "min_sessions=2"]);
        assert_eq!(cli.global.current_session.as_deref(), Some("abc"));
    }
}
