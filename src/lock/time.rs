//! RFC 3339 times for approvals: formatting seconds since the Unix epoch, and checking a
//! time given with `--at`.

use jiff::Timestamp;
use jiff::tz::Offset;

/// Seconds in 400 Gregorian years (146,097 days): the calendar repeats after them exactly.
const CYCLE_SECS: i64 = 146_097 * 86_400;

/// Format seconds since the Unix epoch as RFC 3339 UTC (`2026-07-28T12:00:00Z`).
///
/// `jiff` does the calendar arithmetic. Any `i64` is accepted, as before: the time is brought
/// into 1970..2370 by whole 400-year cycles (which `jiff` always represents), and the cycles
/// are added back to the year, printed with at least four digits (a year past 9999 prints
/// all of its digits, a year before 0 a minus sign).
pub fn rfc3339_from_unix(secs: i64) -> String {
    let cycles = secs.div_euclid(CYCLE_SECS);
    let within = secs.rem_euclid(CYCLE_SECS);
    // `within` is in 0..CYCLE_SECS, inside jiff's range, so the fallback is never taken.
    let at = Timestamp::from_second(within).unwrap_or(Timestamp::UNIX_EPOCH);
    let dt = Offset::UTC.to_datetime(at);
    let year = i64::from(dt.year()) + cycles * 400;
    format!(
        "{year:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        dt.month(),
        dt.day(),
        dt.hour(),
        dt.minute(),
        dt.second()
    )
}

/// Whether `s` is an RFC 3339 date-time (`YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`).
///
/// A shape check, kept by hand on purpose: `jiff`'s parser accepts more (a space for `T`,
/// `+02` or `+0200` offsets, `,5` fractions, missing seconds) and refuses some times this
/// accepts (`2026-02-31`, `+99:99`), so using it would change which `--at` values are taken.
pub fn is_rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|x| x.iter().all(u8::is_ascii_digit));
    if b.len() < 20
        || !digits(0..4)
        || b[4] != b'-'
        || !digits(5..7)
        || b[7] != b'-'
        || !digits(8..10)
        || !matches!(b[10], b'T' | b't')
        || !digits(11..13)
        || b[13] != b':'
        || !digits(14..16)
        || b[16] != b':'
        || !digits(17..19)
    {
        return false;
    }
    let num = |r: std::ops::Range<usize>| s[r].parse::<u32>().unwrap_or(99);
    if !(1..=12).contains(&num(5..7))
        || !(1..=31).contains(&num(8..10))
        || num(11..13) > 23
        || num(14..16) > 59
        || num(17..19) > 60
    {
        return false;
    }
    let mut i = 19;
    if b[i] == b'.' {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match &s[i..] {
        "Z" | "z" => true,
        off => {
            let o = off.as_bytes();
            o.len() == 6
                && matches!(o[0], b'+' | b'-')
                && o[1..3].iter().all(u8::is_ascii_digit)
                && o[3] == b':'
                && o[4..6].iter().all(u8::is_ascii_digit)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339() {
        assert_eq!(rfc3339_from_unix(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_from_unix(1_785_240_000), "2026-07-28T12:00:00Z");
        assert_eq!(rfc3339_from_unix(951_782_400), "2000-02-29T00:00:00Z");
        // Outside jiff's years the output is what the hand-written formatter printed.
        assert_eq!(rfc3339_from_unix(253_402_300_800), "10000-01-01T00:00:00Z");
        assert_eq!(rfc3339_from_unix(-62_167_219_201), "-001-12-31T23:59:59Z");
        assert_eq!(rfc3339_from_unix(i64::MIN), "-292277022657-01-27T08:29:52Z");
        assert!(is_rfc3339("2026-07-28T12:00:00Z"));
        assert!(is_rfc3339("2026-07-28T12:00:00.123+02:00"));
        assert!(!is_rfc3339("2026-07-28 12:00"));
        assert!(!is_rfc3339("2026-13-28T12:00:00Z"));
        assert!(!is_rfc3339("yesterday"));
    }
}
