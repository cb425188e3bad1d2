//! The sealer's tests: round trips, tampering, expiry, bindings and keys.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use serde_json::json;

const KEY_A: [u8; 32] = [0xa5; 32];
const KEY_B: [u8; 32] = [0x3c; 32];

fn t0() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_800_000_000)
}

fn binding<'a>(args: &serde_json::Value, principal: Option<&'a str>) -> Binding<'a> {
    Binding { method: "tools/call", target: "book_flight", args_digest: digest_json(args), principal }
}

fn sealer() -> StateSealer {
    StateSealer::with_keys(vec![KEY_A]).unwrap()
}

#[test]
fn round_trip_returns_user_state() {
    let s = sealer();
    let b = binding(&json!({"from": "CDG", "to": "SFO"}), Some("alice"));
    let token = s.seal(&b, Some("step=2;seat=14C"), t0());
    assert_eq!(s.open(&token, &b, t0()), Ok(Some("step=2;seat=14C".to_owned())));
}

#[test]
fn round_trip_without_user_state_returns_none() {
    let s = sealer();
    let b = binding(&json!({}), None);
    let token = s.seal(&b, None, t0());
    assert_eq!(s.open(&token, &b, t0()), Ok(None));
}

#[test]
fn empty_user_state_is_distinct_from_absent() {
    let s = sealer();
    let b = binding(&json!(null), None);
    let token = s.seal(&b, Some(""), t0());
    assert_eq!(s.open(&token, &b, t0()), Ok(Some(String::new())));
}

#[test]
fn round_trip_unicode_and_json_user_state() {
    let s = sealer();
    let b = binding(&json!([1, 2]), None);
    let state = r#"{"ünïcødé":"✓ 🚀","q":"a.b.c"}"#;
    let token = s.seal(&b, Some(state), t0());
    assert_eq!(s.open(&token, &b, t0()).unwrap().as_deref(), Some(state));
}

#[test]
fn token_is_compact_and_url_safe() {
    let s = sealer();
    let b = binding(&json!({}), None);
    let token = s.seal(&b, Some("x"), t0());
    assert_eq!(token.matches('.').count(), 1);
    assert!(token.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b'.'));
    assert!(token.len() < 120, "{}", token.len());
}

#[test]
fn every_single_byte_change_is_rejected() {
    let s = sealer();
    let b = binding(&json!({"k": "v"}), Some("bob"));
    let token = s.seal(&b, Some("state"), t0());
    let bytes = token.as_bytes();
    let mut checked = 0;
    for i in 0..bytes.len() {
        for replacement in 0u8..=255 {
            if replacement == bytes[i] {
                continue;
            }
            let mut mutated = bytes.to_vec();
            mutated[i] = replacement;
            // Bytes that make the token invalid UTF-8 cannot reach `open`.
            let Ok(mutated) = String::from_utf8(mutated) else {
                continue;
            };
            assert!(s.open(&mutated, &b, t0()).is_err(), "accepted change at {i}");
            checked += 1;
        }
    }
    assert!(checked > bytes.len() * 100);
}

#[test]
fn every_single_bit_flip_is_rejected() {
    let s = sealer();
    let b = binding(&json!({"k": "v"}), None);
    let token = s.seal(&b, None, t0());
    for i in 0..token.len() {
        for bit in 0..7 {
            let mut mutated = token.as_bytes().to_vec();
            mutated[i] ^= 1 << bit;
            let mutated = String::from_utf8(mutated).unwrap();
            assert!(s.open(&mutated, &b, t0()).is_err(), "bit {bit} of byte {i}");
        }
    }
}

/// `token` with its payload changed by `edit` and well encoded again, under its old tag.
fn forged(token: &str, edit: impl FnOnce(&mut Vec<u8>)) -> String {
    let (payload, tag) = token.split_once('.').unwrap();
    let mut raw = URL_SAFE_NO_PAD.decode(payload).unwrap();
    edit(&mut raw);
    format!("{}.{}", URL_SAFE_NO_PAD.encode(&raw), tag)
}

#[test]
fn tampered_payload_with_valid_encoding_fails_signature() {
    let s = sealer();
    let b = binding(&json!({}), None);
    let token = s.seal(&b, Some("admin=false"), t0());
    let forged = forged(&token, |raw| {
        let last = raw.len() - 5;
        raw[last..].copy_from_slice(b"=true");
    });
    assert_eq!(s.open(&forged, &b, t0()), Err(StateError::BadSignature));
}

#[test]
fn extended_expiry_fails_signature() {
    let s = sealer();
    let b = binding(&json!({}), None);
    let token = s.seal(&b, None, t0());
    let forged = forged(&token, |raw| raw[1..9].copy_from_slice(&u64::MAX.to_be_bytes()));
    assert_eq!(s.open(&forged, &b, t0()), Err(StateError::BadSignature));
}

#[test]
fn truncated_tokens_are_rejected() {
    let s = sealer();
    let b = binding(&json!({}), None);
    let token = s.seal(&b, Some("some state"), t0());
    for len in 0..token.len() {
        assert!(s.open(&token[..len], &b, t0()).is_err(), "prefix of length {len}");
    }
    for start in 1..token.len() {
        assert!(s.open(&token[start..], &b, t0()).is_err(), "suffix from {start}");
    }
}

#[test]
fn empty_and_garbage_tokens_are_malformed() {
    let s = sealer();
    let b = binding(&json!({}), None);
    for bad in ["", ".", "..", "abc", "abc.def", "not base64!.AAAA", "🚀.🚀", "a.b.c", "\0\0\0", "%00.%00"]
    {
        assert_eq!(s.open(bad, &b, t0()), Err(StateError::Malformed), "{bad:?}");
    }
}

#[test]
fn extra_separators_and_padding_are_rejected() {
    let s = sealer();
    let b = binding(&json!({}), None);
    let token = s.seal(&b, Some("x"), t0());
    for bad in [
        format!("{token}."),
        format!(".{token}"),
        format!("{token}="),
        token.replacen('.', "..", 1),
        format!(" {token}"),
        format!("{token}\n"),
    ] {
        assert!(s.open(&bad, &b, t0()).is_err(), "{bad:?}");
    }
}

#[test]
fn huge_tokens_are_rejected_before_decoding() {
    let s = sealer();
    let b = binding(&json!({}), None);
    let huge = format!("{}.{}", "A".repeat(10 * MAX_TOKEN_LEN), "A".repeat(TAG_B64_LEN));
    assert_eq!(s.open(&huge, &b, t0()), Err(StateError::Malformed));
    let at_limit_plus_one = "A".repeat(MAX_TOKEN_LEN + 1);
    assert_eq!(s.open(&at_limit_plus_one, &b, t0()), Err(StateError::Malformed));
}

#[test]
fn large_user_state_within_limit_round_trips() {
    let s = sealer();
    let b = binding(&json!({}), None);
    let state = "s".repeat(40 * 1024);
    let token = s.seal(&b, Some(&state), t0());
    assert!(token.len() <= MAX_TOKEN_LEN);
    assert_eq!(s.open(&token, &b, t0()), Ok(Some(state)));
}

#[test]
fn wellformed_token_with_bad_tag_is_bad_signature() {
    let s = sealer();
    let b = binding(&json!({}), None);
    let token = s.seal(&b, None, t0());
    let (payload, _) = token.split_once('.').unwrap();
    let forged = format!("{payload}.{}", URL_SAFE_NO_PAD.encode([0u8; 32]));
    assert_eq!(s.open(&forged, &b, t0()), Err(StateError::BadSignature));
}

#[test]
fn expires_after_ttl() {
    let s = sealer().ttl(Duration::from_secs(60));
    let b = binding(&json!({}), None);
    let token = s.seal(&b, Some("x"), t0());
    assert!(s.open(&token, &b, t0() + Duration::from_secs(59)).is_ok());
    assert!(s.open(&token, &b, t0() + Duration::from_millis(59_999)).is_ok());
    assert_eq!(s.open(&token, &b, t0() + Duration::from_secs(60)), Err(StateError::Expired));
    assert_eq!(s.open(&token, &b, t0() + Duration::from_secs(86_400)), Err(StateError::Expired));
}

#[test]
fn default_ttl_is_ten_minutes() {
    let s = sealer();
    assert_eq!(s.time_to_live(), Duration::from_secs(600));
    let b = binding(&json!({}), None);
    let token = s.seal(&b, None, t0());
    assert!(s.open(&token, &b, t0() + Duration::from_secs(599)).is_ok());
    assert_eq!(s.open(&token, &b, t0() + Duration::from_secs(600)), Err(StateError::Expired));
}

#[test]
fn zero_ttl_is_immediately_expired() {
    let s = sealer().ttl(Duration::ZERO);
    let b = binding(&json!({}), None);
    let token = s.seal(&b, None, t0());
    assert_eq!(s.open(&token, &b, t0()), Err(StateError::Expired));
}

#[test]
fn huge_ttl_and_pre_epoch_clock_do_not_panic() {
    let s = sealer().ttl(Duration::MAX);
    let b = binding(&json!({}), None);
    let token = s.seal(&b, None, t0());
    assert_eq!(s.open(&token, &b, t0()), Ok(None));
    let before_epoch = UNIX_EPOCH - Duration::from_secs(10);
    let s = sealer();
    let token = s.seal(&b, None, before_epoch);
    assert_eq!(s.open(&token, &b, before_epoch), Ok(None));
}

#[test]
fn another_method_target_or_arguments_is_rejected() {
    let s = sealer();
    let b = binding(&json!({"amount": 10}), None);
    let token = s.seal(&b, None, t0());
    let others = [
        Binding { method: "prompts/get", ..b },
        Binding { target: "cancel_flight", ..b },
        binding(&json!({"amount": 10_000}), None),
    ];
    for other in others {
        assert_eq!(s.open(&token, &other, t0()), Err(StateError::WrongBinding), "{other:?}");
    }
    assert_eq!(s.open(&token, &b, t0()), Ok(None));
}

#[test]
fn wrong_or_missing_principal_is_rejected() {
    let s = sealer();
    let args = json!({"a": 1});
    let token = s.seal(&binding(&args, Some("alice")), None, t0());
    assert_eq!(s.open(&token, &binding(&args, Some("mallory")), t0()), Err(StateError::WrongBinding));
    assert_eq!(s.open(&token, &binding(&args, None), t0()), Err(StateError::WrongBinding));
    let anonymous = s.seal(&binding(&args, None), None, t0());
    assert_eq!(s.open(&anonymous, &binding(&args, Some("")), t0()), Err(StateError::WrongBinding));
}

#[test]
fn binding_fields_do_not_run_into_each_other() {
    let s = sealer();
    let d = digest_json(&json!({}));
    let b1 = Binding { method: "ab", target: "c", args_digest: d, principal: None };
    let b2 = Binding { method: "a", target: "bc", args_digest: d, principal: None };
    let token = s.seal(&b1, None, t0());
    assert_eq!(s.open(&token, &b2, t0()), Err(StateError::WrongBinding));
}

#[test]
fn argument_key_order_does_not_matter() {
    let s = sealer();
    let a: serde_json::Value =
        serde_json::from_str(r#"{"x":1,"y":{"b":[1,{"d":2,"c":3}],"a":null}}"#).unwrap();
    let b: serde_json::Value =
        serde_json::from_str(r#"{"y":{"a":null,"b":[1,{"c":3,"d":2}]},"x":1}"#).unwrap();
    let token = s.seal(&binding(&a, None), Some("st"), t0());
    assert_eq!(s.open(&token, &binding(&b, None), t0()), Ok(Some("st".to_owned())));
}

#[test]
fn key_rotation_old_key_still_verifies_while_listed() {
    let old = StateSealer::with_keys(vec![KEY_A]).unwrap();
    let b = binding(&json!({}), None);
    let token = old.seal(&b, Some("s"), t0());

    let rotated = StateSealer::with_keys(vec![KEY_B, KEY_A]).unwrap();
    assert_eq!(rotated.open(&token, &b, t0()), Ok(Some("s".to_owned())));

    let retired = StateSealer::with_keys(vec![KEY_B]).unwrap();
    assert_eq!(retired.open(&token, &b, t0()), Err(StateError::BadSignature));
}

#[test]
fn key_rotation_first_key_seals() {
    let rotated = StateSealer::with_keys(vec![KEY_B, KEY_A]).unwrap();
    let b = binding(&json!({}), None);
    let token = rotated.seal(&b, None, t0());
    let only_b = StateSealer::with_keys(vec![KEY_B]).unwrap();
    let only_a = StateSealer::with_keys(vec![KEY_A]).unwrap();
    assert_eq!(only_b.open(&token, &b, t0()), Ok(None));
    assert_eq!(only_a.open(&token, &b, t0()), Err(StateError::BadSignature));
}

#[test]
fn sealer_is_send_and_sync_for_sharing_across_tasks() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<StateSealer>();
    assert_send_sync::<StateError>();
    assert_send_sync::<KeyError>();
}

#[test]
fn empty_key_list_is_an_error() {
    assert_eq!(StateSealer::with_keys(Vec::new()).unwrap_err(), KeyError::NoKeys);
}

#[test]
fn random_sealers_use_distinct_keys() {
    let s1 = StateSealer::random().unwrap();
    let s2 = StateSealer::random().unwrap();
    let b = binding(&json!({}), None);
    let token = s1.seal(&b, None, t0());
    assert_eq!(s1.open(&token, &b, t0()), Ok(None));
    assert_eq!(s2.open(&token, &b, t0()), Err(StateError::BadSignature));
}

#[test]
fn sealing_is_deterministic_for_same_inputs() {
    let s = sealer();
    let b = binding(&json!({"q": 1}), None);
    assert_eq!(s.seal(&b, Some("x"), t0()), s.seal(&b, Some("x"), t0()));
    assert_ne!(s.seal(&b, Some("x"), t0()), s.seal(&b, Some("y"), t0()));
}

#[test]
fn debug_output_redacts_keys() {
    let s = sealer();
    let dbg = format!("{s:?}");
    assert!(dbg.contains("redacted"));
    assert!(!dbg.contains("165"), "{dbg}"); // 0xa5
}

#[test]
fn error_display_is_generic_for_every_variant() {
    for e in [StateError::Malformed, StateError::BadSignature, StateError::Expired, StateError::WrongBinding]
    {
        assert_eq!(e.to_string(), "invalid or expired requestState");
    }
}

#[test]
fn hmac_matches_rfc4231_test_case_2() {
    // Key "Jefe" zero-padded to 32 bytes is the same HMAC key.
    let mut key = [0u8; 32];
    key[..4].copy_from_slice(b"Jefe");
    let tag = keyed_mac(&key).chain_update(b"what do ya want for nothing?").finalize().into_bytes();
    let expected = [
        0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e, 0x6a, 0x04, 0x24, 0x26, 0x08, 0x95, 0x75, 0xc7, 0x5a,
        0x00, 0x3f, 0x08, 0x9d, 0x27, 0x39, 0x83, 0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec, 0x38, 0x43,
    ];
    assert_eq!(tag[..], expected[..]);
}

#[test]
fn a_token_opens_as_often_as_asked_unless_the_sealer_is_single_use() {
    let b = binding(&json!({"to": "SFO"}), Some("alice"));
    let reusable = sealer();
    let token = reusable.seal(&b, Some("s"), t0());
    for _ in 0..2 {
        assert_eq!(reusable.open(&token, &b, t0()), Ok(Some("s".to_owned())));
    }

    let single = sealer().single_use();
    let token = single.seal(&b, Some("s"), t0());
    let other = single.seal(&b, Some("s"), t0() + Duration::from_millis(1));
    // A token that fails a check is not spent by it.
    assert_eq!(single.open(&token, &binding(&json!({}), Some("alice")), t0()), Err(StateError::WrongBinding));
    assert_eq!(single.open(&token, &b, t0()), Ok(Some("s".to_owned())));
    assert_eq!(single.open(&token, &b, t0()), Err(StateError::Replayed));
    // Clones share the memory; another token of the same request is its own.
    assert_eq!(single.clone().open(&token, &b, t0()), Err(StateError::Replayed));
    assert_eq!(single.clone().open(&other, &b, t0()), Ok(Some("s".to_owned())));
    assert_eq!(single.open(&other, &b, t0()), Err(StateError::Replayed));
}
