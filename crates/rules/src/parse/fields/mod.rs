//! `-F name OP value`: auditctl's `audit_rule_fieldpair_data`. The pair is
//! split and its list checked here; the value is read by the parser of its
//! field's family: `ids` (uid and gid fields), `numbers` (plain numbers,
//! a0-a3, sessionid, saddr_fam), `exit`, `arch`, `msgtype`, `files` (perm,
//! filetype, fstype) and `strings` (LSM labels, path, dir, key, exe).

mod arch;
mod exit;
mod files;
mod ids;
mod msgtype;
mod numbers;
mod pair;
mod strings;

use super::{err, find, show, State, SyntaxError};
use crate::abi::{field, list, op};
use crate::tables;
use pair::Pair;

/// auditctl's operators, in the order it searches the pair for them: the
/// first one found anywhere wins (so `key=a!=b` splits at `!=`).
pub(super) const OPS: &[(&[u8], u32)] = &[
    (b"!=", op::NOT_EQUAL),
    (b">=", op::GREATER_THAN_OR_EQUAL),
    (b"<=", op::LESS_THAN_OR_EQUAL),
    (b"&=", op::BIT_TEST),
    (b"=", op::EQUAL),
    (b">", op::GREATER_THAN),
    (b"<", op::LESS_THAN),
    (b"&", op::BIT_MASK),
];

/// The operators as documented (auditctl(8)'s order), for messages.
pub(super) const OPERATOR_LIST: &str = "=, !=, <, >, <=, >=, &, &=";

/// Common misspellings of an operator and the operator meant.
const OPERATOR_FIXES: &[(&[u8], &[u8])] = &[
    (b"=>", b">="),
    (b"=<", b"<="),
    (b"=!", b"!="),
    (b"=&", b"&="),
    (b"==", b"="),
    (b"<>", b"!="),
    (b"!", b"!="),
];

/// Whether a byte can be part of an operator.
fn operator_byte(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'<' | b'>' | b'&')
}

/// Why a refused pair's operator is wrong, if it is: its first run of
/// operator bytes (`=>` in `uid=>0`) is no operator. auditctl splits at
/// the first operator it finds and blames the rest (`unknown user: >0`);
/// saying the operator is wrong names the real mistake.
fn operator_fault(pair: &[u8]) -> Option<SyntaxError> {
    let start = pair.iter().position(|&b| operator_byte(b))?;
    let len = pair[start..]
        .iter()
        .take_while(|&&b| operator_byte(b))
        .count();
    let run = &pair[start..start + len];
    if OPS.iter().any(|(sym, _)| *sym == run) {
        return None;
    }
    let fix = OPERATOR_FIXES
        .iter()
        .find(|(bad, _)| *bad == run)
        .map(|(_, good)| {
            let fixed = [&pair[..start], good, &pair[start + len..]].concat();
            format!("; did you mean {}?", show(&fixed))
        })
        .unwrap_or_default();
    Some(SyntaxError(format!(
        "-F {}: malformed operator {} (the operators are {OPERATOR_LIST}){fix}",
        show(pair),
        show(run)
    )))
}

/// What a field's value becomes in the rule.
enum Value {
    /// A number in the field's value slot.
    Number(u32),
    /// A string field's text (its length goes in the value slot).
    Text(Vec<u8>),
}

/// Split `name OP value`, checking each part is there and the name is
/// known (naming the nearest known one with `hints`).
fn split(pair: &[u8], list: Option<u32>, hints: bool) -> Result<Pair<'_>, SyntaxError> {
    let Some((i, sym, o)) = OPS
        .iter()
        .find_map(|(sym, o)| find(pair, sym).map(|i| (i, *sym, *o)))
    else {
        return err(format!(
            "-F {}: missing operator (one of {OPERATOR_LIST})",
            show(pair)
        ));
    };
    let (name, value) = (&pair[..i], &pair[i + sym.len()..]);
    if name.is_empty() {
        return err(format!("-F {}: missing field name", show(pair)));
    }
    if value.is_empty() {
        return err(format!("-F {}: missing value", show(pair)));
    }
    let Some(fld) = tables::field_number(name) else {
        return err(format!(
            "-F: unknown field: {}{}",
            show(name),
            if hints {
                tables::field_hint(name)
            } else {
                String::new()
            }
        ));
    };
    Ok(Pair {
        name,
        field: fld,
        op: o,
        value,
        list,
    })
}

/// The fields auditctl lets on the exclude list.
fn allowed_on_exclude(f: u32) -> bool {
    matches!(
        f,
        field::PID | field::UID | field::GID | field::LOGINUID | field::MSGTYPE | field::SUBJ_USER
            ..=field::SUBJ_CLR | field::EXE
    )
}

impl State<'_> {
    /// `-F name OP value` for a rule on `list`: add the field.
    pub(super) fn fieldpair(&mut self, pair: &[u8], list: Option<u32>) -> Result<(), SyntaxError> {
        self.room()?;
        let p = split(pair, list, self.hints)?;
        if list == Some(list::EXCLUDE) && !allowed_on_exclude(p.field) {
            return err(format!(
                "-F {}: only msgtype, pid, uid, gid, auid, subj_* and exe are valid on the exclude list",
                p.name()
            ));
        }
        match self.field_value(&p)? {
            Value::Number(v) => self.push(p.field, p.op, v, Vec::new()),
            Value::Text(t) => self.push(p.field, p.op, t.len() as u32, t),
        }
        Ok(())
    }

    /// A `-F` pair as written: [`State::fieldpair`], but a refusal blames a
    /// malformed operator first (auditctl refuses the same pairs, for a
    /// reason that does not show the mistake).
    pub(super) fn written_fieldpair(
        &mut self,
        pair: &[u8],
        list: Option<u32>,
    ) -> Result<(), SyntaxError> {
        // First: too many fields is no operator's fault.
        self.room()?;
        self.fieldpair(pair, list)
            .map_err(|e| operator_fault(pair).unwrap_or(e))
    }

    /// Read the value with its family's parser.
    fn field_value(&mut self, p: &Pair) -> Result<Value, SyntaxError> {
        let n = match p.field {
            field::UID
            | field::EUID
            | field::SUID
            | field::FSUID
            | field::LOGINUID
            | field::OBJ_UID => self.user_id_value(p)?,
            field::GID | field::EGID | field::SGID | field::FSGID | field::OBJ_GID => {
                self.group_id_value(p)?
            }
            field::EXIT => self.exit_value(p)?,
            field::MSGTYPE => self.msgtype_value(p)?,
            f if field::is_string(f) => return self.string_value(p).map(Value::Text),
            field::ARCH => self.arch_value(p)?,
            field::PERM => files::perm_value(p)?,
            field::FILETYPE => files::filetype_value(p)?,
            field::FSTYPE => self.fstype_value(p)?,
            field::ARG0..=field::ARG3 => self.arg_value(p)?,
            field::SESSIONID => self.sessionid_value(p)?,
            field::SADDR_FAM => self.saddr_fam_value(p)?,
            _ => self.plain_value(p)?,
        };
        Ok(Value::Number(n))
    }
}
