//! RFC 8785 JSON Canonicalization Scheme (JCS), and the sha256 helpers built on it.
//!
//! Canonical form: no insignificant whitespace; object members sorted by the UTF-16 code
//! units of their names; strings with the minimal escaping of ECMAScript `JSON.stringify`
//! (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other controls as `\u00xx`, everything else
//! literal UTF-8); numbers as IEEE 754 doubles printed by ECMAScript `Number.prototype.toString`
//! (`1e+21`, `1e-7`, `0.000001`, `-0` → `0`).
//!
//! `serde_json::Value` cannot hold NaN or infinities, so every value has a canonical form.
//! Integers beyond ±2^53 are, as the RFC requires, rounded to the nearest double.

use std::cmp::Ordering;
use std::fmt::Write as _;

use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};

/// The RFC 8785 canonical JSON text of a value.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::with_capacity(256);
    write_value(&mut out, value);
    out
}

/// Append the canonical JSON text of `value` to `out`.
pub fn write_canonical(out: &mut String, value: &Value) {
    write_value(out, value);
}

/// Lower-case hex sha256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Lower-case hex sha256 of a value's canonical JSON.
pub fn hash_value(value: &Value) -> String {
    sha256_hex(canonical_json(value).as_bytes())
}

/// Compare two strings by their UTF-16 code units, as RFC 8785 §3.2.3 sorts member names.
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    // Fast path: for code points below U+10000, UTF-8 byte order equals UTF-16 unit order
    // except where surrogates (U+D800..) sort below U+E000..U+FFFF; so only fall back when
    // either string has a supplementary character.
    if a.is_ascii() && b.is_ascii() {
        return a.cmp(b);
    }
    a.encode_utf16().cmp(b.encode_utf16())
}

/// The members of an object in canonical (UTF-16) order.
pub fn sorted_members(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut members: Vec<(&String, &Value)> = map.iter().collect();
    members.sort_by(|a, b| cmp_utf16(a.0, b.0));
    members
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(true) => out.push_str("true"),
        Value::Bool(false) => out.push_str("false"),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in sorted_members(map).into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, key);
                out.push(':');
                write_value(out, item);
            }
            out.push('}');
        }
    }
}

/// 2^53: integers up to this magnitude are exact doubles.
const EXACT_INT: u64 = 1 << 53;

fn write_number(out: &mut String, n: &Number) {
    if let Some(u) = n.as_u64().filter(|u| *u <= EXACT_INT) {
        let _ = write!(out, "{u}");
    } else if let Some(i) = n.as_i64().filter(|i| i.unsigned_abs() <= EXACT_INT) {
        if i == 0 {
            out.push('0');
        } else {
            let _ = write!(out, "{i}");
        }
    } else {
        // Every serde_json number converts to a finite f64 (big integers round, as in ECMAScript).
        out.push_str(&format_f64(n.as_f64().unwrap_or(0.0)));
    }
}

/// Format a finite double exactly as ECMAScript `Number.prototype.toString(10)` does.
/// Non-finite values (which JSON cannot carry) are written as `null`, like `JSON.stringify`.
pub fn format_f64(x: f64) -> String {
    if !x.is_finite() {
        return "null".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let mut out = String::new();
    let x = if x < 0.0 {
        out.push('-');
        -x
    } else {
        x
    };
    let (digits, n) = shortest_digits(x);
    let k = digits.len() as i32;
    if k <= n && n <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        out.push_str(&digits);
    } else {
        let e = n - 1;
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if e < 0 { '-' } else { '+' });
        let _ = write!(out, "{}", e.unsigned_abs());
    }
    out
}

/// Split Rust's `{:e}` output (`d[.ddd]e[-]N`) into its digits and `n` such that the value
/// is `0.d1d2… × 10^n`.
fn split_sci(sci: &str) -> (String, i32) {
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (digits, exp.parse::<i32>().unwrap_or(0) + 1)
}

/// The shortest digits that round-trip to `x` (positive, finite) and their exponent `n`,
/// choosing the digits closest to `x` and, on an exact tie, the even one (ECMAScript
/// Number::toString step 5; Rust's shortest formatting may round such a tie up).
fn shortest_digits(x: f64) -> (String, i32) {
    let (digits, n) = split_sci(&format!("{x:e}"));
    // A tie needs two k-digit neighbours one ulp apart, which only happens for k ≥ 16.
    if digits.len() < 16 {
        return (digits, n);
    }
    let k = digits.len();
    // Cheap filter: on a tie the exact value is k+1 digits ending in 5, so its correctly
    // rounded k+2-digit form ends in "50".
    let (probe, _) = split_sci(&format!("{x:.*e}", k + 1));
    if !probe.ends_with("50") {
        return (digits, n);
    }
    // The exact decimal expansion of a double has at most 767 significant digits.
    let (exact, en) = split_sci(&format!("{x:.800e}"));
    let exact = exact.trim_end_matches('0');
    if exact.len() != k + 1 || !exact.ends_with('5') {
        return (digits, n);
    }
    let down = exact[..k].to_owned();
    let (up, up_n) = increment(&down, en);
    let parses_back = |d: &str, n: i32| format!("0.{d}e{n}").parse::<f64>().ok() == Some(x);
    let down_ok = parses_back(&down, en);
    let up_ok = parses_back(&up, up_n);
    let down_even = down.bytes().last().is_some_and(|b| (b - b'0') % 2 == 0);
    match (down_ok, up_ok) {
        (true, true) if down_even => (down.trim_end_matches('0').to_owned(), en),
        (true, true) => (up.trim_end_matches('0').to_owned(), up_n),
        _ => (digits, n),
    }
}

/// Add one unit in the last place to a digit string; a carry out of the first digit
/// lengthens the value by one power of ten.
fn increment(digits: &str, n: i32) -> (String, i32) {
    let mut b = digits.as_bytes().to_vec();
    for i in (0..b.len()).rev() {
        if b[i] == b'9' {
            b[i] = b'0';
        } else {
            b[i] += 1;
            return (String::from_utf8_lossy(&b).into_owned(), n);
        }
    }
    let mut s = String::from("1");
    s.push_str(&String::from_utf8_lossy(&b));
    (s, n + 1)
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x00..=0x1f => None,
            _ => continue,
        };
        out.push_str(&s[start..i]);
        match escape {
            Some(e) => out.push_str(e),
            None => {
                let _ = write!(out, "\\u{b:04x}");
            }
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn canon(text: &str) -> String {
        canonical_json(&serde_json::from_str::<Value>(text).unwrap())
    }

    /// RFC 8785 §3.2.2: the worked example.
    #[test]
    fn rfc_example_values() {
        let input = r#"{
          "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
          "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
          "literals": [null, true, false]
        }"#;
        assert_eq!(
            canon(input),
            r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
        );
    }

    /// RFC 8785 §3.2.3: sorting by UTF-16 code units.
    #[test]
    fn rfc_sorting_example() {
        let input = r#"{
          "\u20ac": "Euro Sign",
          "\r": "Carriage Return",
          "\ufb33": "Hebrew Letter Dalet With Dagesh",
          "1": "One",
          "\ud83d\ude00": "Emoji: Grinning Face",
          "\u0080": "Control",
          "\u00f6": "Latin Small Letter O With Diaeresis"
        }"#;
        let out = canon(input);
        let v: Value = serde_json::from_str(&out).unwrap();
        let order: Vec<&str> = v
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(
            order,
            [
                "Carriage Return",
                "One",
                "Control",
                "Latin Small Letter O With Diaeresis",
                "Euro Sign",
                "Emoji: Grinning Face",
                "Hebrew Letter Dalet With Dagesh"
            ]
        );
        // U+1F600 (surrogates D83D DE00) sorts before U+FB33 in UTF-16, after it in UTF-8.
        assert_eq!(cmp_utf16("\u{1F600}", "\u{FB33}"), Ordering::Less);
        assert_eq!("\u{1F600}".cmp("\u{FB33}"), Ordering::Greater);
    }

    /// RFC 8785 Appendix B: number serialisation samples (IEEE 754 bit patterns).
    #[test]
    fn rfc_number_table() {
        let table: &[(u64, &str)] = &[
            (0x0000000000000000, "0"),
            (0x8000000000000000, "0"),
            (0x0000000000000001, "5e-324"),
            (0x8000000000000001, "-5e-324"),
            (0x7fefffffffffffff, "1.7976931348623157e+308"),
            (0xffefffffffffffff, "-1.7976931348623157e+308"),
            (0x4340000000000000, "9007199254740992"),
            (0xc340000000000000, "-9007199254740992"),
            (0x4430000000000000, "295147905179352830000"),
            (0x44b52d02c7e14af5, "9.999999999999997e+22"),
            (0x44b52d02c7e14af6, "1e+23"),
            (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
            (0x444b1ae4d6e2ef4e, "999999999999999700000"),
            (0x444b1ae4d6e2ef4f, "999999999999999900000"),
            (0x444b1ae4d6e2ef50, "1e+21"),
            (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
            (0x3eb0c6f7a0b5ed8d, "0.000001"),
            (0x41b3de4355555553, "333333333.3333332"),
            (0x41b3de4355555554, "333333333.33333325"),
            (0x41b3de4355555555, "333333333.3333333"),
            (0x41b3de4355555556, "333333333.3333334"),
            (0x41b3de4355555557, "333333333.33333343"),
            (0xbecbf647612f3696, "-0.0000033333333333333333"),
            (0x43143ff3c1cb0959, "1424953923781206.2"),
        ];
        for (bits, want) in table {
            let x = f64::from_bits(*bits);
            assert_eq!(format_f64(x), *want, "bits {bits:#018x}");
            // And through a JSON value, where the number is held as f64.
            if let Some(n) = Number::from_f64(x) {
                assert_eq!(
                    canonical_json(&Value::Number(n)),
                    *want,
                    "value {bits:#018x}"
                );
            }
        }
        assert_eq!(format_f64(f64::NAN), "null");
        assert_eq!(format_f64(f64::INFINITY), "null");
    }

    #[test]
    fn number_forms_and_integers() {
        assert_eq!(
            canon("[1e21, 1e20, 1e-7, 1e-6, -0.0, 0, -0, 1.0, 100, 1.5e300]"),
            "[1e+21,100000000000000000000,1e-7,0.000001,0,0,0,1,100,1.5e+300]"
        );
        assert_eq!(
            canon("[9007199254740993, -9007199254740993, 18446744073709551615]"),
            "[9007199254740992,-9007199254740992,18446744073709552000]"
        );
        assert_eq!(
            canon("[-1, -9007199254740992, 123456789]"),
            "[-1,-9007199254740992,123456789]"
        );
    }

    #[test]
    fn strings_escape_minimally() {
        let v = json!(["\u{7f}\u{2028}\u{1F600}é", "\u{0}\u{1f}\t", "</script>"]);
        assert_eq!(
            canonical_json(&v),
            "[\"\u{7f}\u{2028}\u{1F600}é\",\"\\u0000\\u001f\\t\",\"</script>\"]"
        );
    }

    #[test]
    fn nested_objects_sort_and_arrays_keep_order() {
        let v = json!({"b": [3, {"z": 1, "a": 2}], "a": {}, "aa": []});
        assert_eq!(
            canonical_json(&v),
            r#"{"a":{},"aa":[],"b":[3,{"a":2,"z":1}]}"#
        );
        assert_eq!(
            hash_value(&json!({})),
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }

    proptest::proptest! {
        /// Canonical text parses back to the same value and is a fixed point.
        #[test]
        fn canonical_is_idempotent(x in proptest::num::f64::NORMAL | proptest::num::f64::SUBNORMAL,
                                   s in "\\PC*", k in "\\PC{0,8}") {
            let k = format!("k{k}"); // never the fixed key "n"
            let v = json!({ k.clone(): [x, s.clone()], "n": x });
            let c = canonical_json(&v);
            let back: Value = serde_json::from_str(&c).unwrap();
            proptest::prop_assert_eq!(canonical_json(&back), c);
            proptest::prop_assert_eq!(back[&k][1].as_str(), Some(s.as_str()));
            proptest::prop_assert_eq!(back["n"].as_f64(), Some(x));
        }
    }
}
