//! Rule sets for unit tests: parsed with a fixed x86_64 host (or one of
//! another target's machine), compiled for that target with assumed hook
//! kinds unless an environment is given.

use crate::plan::compile::compile;
use crate::plan::rule::CompileError;
use crate::plan::{Environment, Plan};
use fastaudit_rules::{FixedHost, FixedHostOn, RuleSet, Target};

/// The rule set of `text` (panics on a rule the rules crate refuses).
pub fn set(text: &str) -> RuleSet {
    RuleSet::from_text(text.as_bytes(), "t.rules", &FixedHost).expect("valid rule")
}

/// `text` compiled with every hook kind and tracepoint assumed present.
pub fn plan(text: &str) -> Result<Plan, CompileError> {
    plan_in(text, Environment::default())
}

/// `text` compiled in `env`, for x86_64 (the machine it is parsed for).
pub fn plan_in(text: &str, env: Environment) -> Result<Plan, CompileError> {
    let env = Environment {
        target: Target::X86_64,
        ..env
    };
    compile(&set(text), env)
}

/// The rule set of `text` as auditctl on `target`'s machine reads it.
pub fn set_on(target: Target, text: &str) -> RuleSet {
    RuleSet::from_text(text.as_bytes(), "t.rules", &FixedHostOn(target.native)).expect("valid rule")
}

/// `text` read and compiled for `target` in `env`.
pub fn plan_on(target: Target, text: &str, env: Environment) -> Result<Plan, CompileError> {
    compile(&set_on(target, text), Environment { target, ..env })
}
