//! Unit tests of the solver's scoring and transposition table.

use super::*;

/// The final score gives the empties to the winner and counts a tie as 0.
#[test]
fn final_score_gives_empties_to_the_winner() {
    assert_eq!(final_score(0xFF, 0), 64);
    assert_eq!(final_score(0, 0xFF), -64);
    assert_eq!(final_score(0b111, 0b11000), 1 + 59);
    assert_eq!(final_score(0b1, 0b10), 0);
}

/// The table keeps the tightest bounds it was given for a position, and only for it.
#[test]
fn table_merges_bounds() {
    let mut table = Table::new(16).unwrap();
    table.put(1, 2, -10, 10, 12, 5); // fail high: at least 12
    table.put(1, 2, 20, 30, 14, 6); // fail low: at most 14
    let entry = table.get(1, 2).unwrap();
    assert_eq!((entry.lower, entry.upper, entry.best), (12, 14, 6));
    assert!(table.get(2, 1).is_none());
}

/// A bucket's first slot keeps the position with the most empties that met there;
/// the others share the second, each evicting the last.
#[test]
fn table_buckets_keep_the_deeper_position() {
    let mut table = Table::new(2).unwrap(); // one bucket
    let present = |table: &Table, (me, opp): (u64, u64)| table.get(me, opp).is_some();
    let (deep, shallow, middle, deepest) = ((1, 2), (0xFF, 0xFF00), (0xF0, 0x0F00), (0, 0x20));
    for (i, (me, opp)) in [deep, shallow].into_iter().enumerate() {
        table.put(me, opp, -64, 64, 2 * i as i32, 0);
    }
    assert!(present(&table, deep) && present(&table, shallow));
    table.put(middle.0, middle.1, -64, 64, 0, 0); // 56 empties, fewer than 62
    assert!(present(&table, deep) && present(&table, middle) && !present(&table, shallow));
    table.put(deepest.0, deepest.1, -64, 64, 0, 0); // 63 empties: first slot
    assert!(present(&table, deepest) && present(&table, deep) && !present(&table, middle));
    assert_eq!(table.get(deep.0, deep.1).map(|e| (e.lower, e.upper)), Some((0, 0)), "bounds move with the entry");
}
