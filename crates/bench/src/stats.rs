//! Medians and spreads of samples.

use serde::Serialize;

/// Summary of one mode's samples.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Samples summarised.
    pub n: usize,
    /// The median.
    pub median: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// (max - min) / median: how far apart the rounds were.
    pub spread: f64,
}

/// The median of `v` (mean of the middle two for even counts); NaN when empty.
pub fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return f64::NAN;
    }
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// Summarise samples; `None` when there are none.
pub fn summarize(v: &[f64]) -> Option<Summary> {
    if v.is_empty() {
        return None;
    }
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let median = median(v);
    Some(Summary {
        n: v.len(),
        median,
        min,
        max,
        spread: if median > 0.0 {
            (max - min) / median
        } else {
            0.0
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn summary_spread() {
        let s = summarize(&[90.0, 100.0, 110.0]).unwrap();
        assert_eq!(s.median, 100.0);
        assert!((s.spread - 0.2).abs() < 1e-12);
        assert!(summarize(&[]).is_none());
    }
}
