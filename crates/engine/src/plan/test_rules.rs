//! Rule sets for unit tests: parsed with a fixed x86_64 host, compiled
//! with assumed hook kinds unless an environment is given.

use crate::plan::compile::compile;
use crate::plan::rule::CompileError;
use crate::plan::{Environment, Plan};
use fastaudit_rules::{FixedHost, RuleSet};

/// The rule set of `text` (panics on a rule the rules crate refuses).
pub fn set(text: &str) -> RuleSet {
    RuleSet::from_text(text.as_bytes(), "t.rules", &FixedHost).expect("valid rule")
}

/// `text` compiled with every hook kind and tracepoint assumed present.
pub fn plan(text: &str) -> Result<Plan, CompileError> {
    compile(&set(text), Environment::default())
}

/// `text` compiled in `env`.
pub fn plan_in(text: &str, env: Environment) -> Result<Plan, CompileError> {
    compile(&set(text), env)
}
