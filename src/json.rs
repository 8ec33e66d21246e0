//! Shapes that several commands' JSON reports share. The reports are
//! structs deriving `Serialize` (their field order is the key order), and
//! what no struct can say, an object whose keys are data (column names,
//! term names), is an [`Object`] here.

use serde::{Serialize, Serializer};

/// A JSON object whose keys are data, in the order given: `{"P": 100.0,
/// "N": 288.0}`. (A map type would sort the keys or need another
/// dependency; the reports list columns in the layout's order.) Through
/// [`to_value`], a key given twice keeps its first place and its last
/// value, as inserting into a `serde_json::Map` does.
#[derive(Clone, Debug, PartialEq)]
pub struct Object<K, V>(pub Vec<(K, V)>);

impl<K, V> FromIterator<(K, V)> for Object<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(pairs: I) -> Self {
        Object(pairs.into_iter().collect())
    }
}

impl<K: Serialize, V: Serialize> Serialize for Object<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// A report's JSON as a `serde_json::Value`, for the `to_json` methods the
/// command line prints. The reports have string keys and no serializer of
/// their own that can fail, so serialising them cannot fail.
pub fn to_value<T: Serialize>(report: &T) -> serde_json::Value {
    serde_json::to_value(report).expect("a report serialises: string keys only, no fallible field")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_their_order_and_a_repeated_key_its_first_place() {
        let object: Object<&str, i32> = [("Q", 9), ("P", 1), ("Q", 10)].into_iter().collect();
        assert_eq!(to_value(&object).to_string(), r#"{"Q":10,"P":1}"#);
    }
}
