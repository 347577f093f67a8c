//! What of the running kernel decides how it writes an event's records,
//! probed once at start and handed to `decode` as data (which then reads
//! nothing of the host's itself; its tests build the kernel they mean).

pub(crate) use crate::host::btf::NameOrder;

/// The kernel facts decoding needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Facts {
    /// (major, minor): for behaviour no BTF type or symbol tells apart
    /// (the empty name of the stat family before 6.11, the directory of
    /// an O_CREAT open of an existing file before 6.12).
    pub version: (u32, u32),
    /// The order it takes link's, symlink's and rename's two names in.
    pub order: NameOrder,
    /// TOMOYO runs: it looks an exec's program up a second time.
    pub tomoyo: bool,
    /// io_uring preps delay their names (`host::btf::uring_delayed_names`).
    pub uring_delayed_names: bool,
}

impl Facts {
    /// This kernel's, probed now (its version, BTF and LSM list).
    pub(crate) fn probe() -> Facts {
        use crate::host::btf::{name_order, uring_delayed_names, KernelBtf};
        use crate::host::lsm::active_lsms;
        use crate::host::probe::kernel_version;
        let btf = KernelBtf::load();
        Facts {
            version: kernel_version(),
            order: name_order(btf.as_ref()),
            tomoyo: active_lsms().is_some_and(|l| l.iter().any(|m| m == "tomoyo")),
            uring_delayed_names: uring_delayed_names(btf.as_ref()),
        }
    }

    /// A kernel of this version with the older name order (the new name
    /// first) and no TOMOYO.
    #[cfg(test)]
    pub(crate) fn at(version: (u32, u32)) -> Facts {
        Facts {
            version,
            order: NameOrder::default(),
            tomoyo: false,
            uring_delayed_names: false,
        }
    }
}
