//! Sizes as a reader takes them in: `64 MiB`, not `67108864 bytes`.

/// `bytes` in the largest binary unit it reaches (KiB, MiB, GiB), whole
/// when exact, else to one decimal; below 1 KiB, in bytes.
pub fn human(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    match UNITS.iter().find(|(size, _)| bytes >= *size) {
        Some((size, unit)) if bytes.is_multiple_of(*size) => format!("{} {unit}", bytes / size),
        Some((size, unit)) => format!("{:.1} {unit}", bytes as f64 / *size as f64),
        None if bytes == 1 => "1 byte".into(),
        None => format!("{bytes} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::human;

    #[test]
    fn sizes_in_the_largest_unit_reached() {
        assert_eq!(human(64 << 20), "64 MiB");
        assert_eq!(human(67_108_864), "64 MiB");
        assert_eq!(human((1 << 20) + (1 << 19)), "1.5 MiB");
        assert_eq!(human(4096), "4 KiB");
        assert_eq!(human(3 << 30), "3 GiB");
        assert_eq!(human(1023), "1023 bytes");
        assert_eq!(human(99), "99 bytes");
        assert_eq!(human(1), "1 byte");
    }
}
