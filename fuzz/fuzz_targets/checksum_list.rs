//! Checksum lists are untrusted input: any bytes, under any options, through a whole `check`
//! run (parse every record, report every line with a digest that matches or not or an
//! error, finish) must never panic; every `--json` record must be one line of valid JSON; and
//! every entry read back must write (as `sum` would, its digest in hex or base64; an object
//! store's multipart label in its own form) and parse again to the same entry. Inputs of odd
//! length are read with the object stores' multipart lines on (`check`'s reading).
#![no_main]

mod common;

use std::io;

use libfuzzer_sys::fuzz_target;
use parhash::Output;
use parhash_format::check::{Checker, Event, Record};
use parhash_format::line::{write_line, write_tagged, LineStyle};
use parhash_format::multipart as forms;
use parhash_format::parse::{Line, Parser};

fuzz_target!(|input: &[u8]| {
    let [flags, list @ ..] = input else {
        return;
    };
    let options = common::check_options(*flags);
    let multipart = list.len() % 2 == 1;
    let mut checker = Checker::new(options);
    if multipart {
        checker = checker.with_multipart();
    }
    let mut list_check = checker.start(b"LIST");
    let mut events: Vec<Event> = Vec::new();
    let terminator = list_check.terminator();
    for (n, record) in list.split_inclusive(|&b| b == terminator).enumerate() {
        match list_check.record(record) {
            Record::Skip => {}
            Record::Improper(improper) => list_check.improper(&improper, &mut events).unwrap(),
            Record::Check(job) => {
                let outcome = match n % 3 {
                    0 => Ok(Output::from_slice(&job.entry.expected)),
                    1 => Ok(Output::from_slice(&[0; 4])),
                    _ => Err(io::Error::from_raw_os_error(2)),
                };
                list_check.checked(&job, &outcome, &mut events).unwrap();
                round_trip(&job.entry, options.zero, multipart);
            }
        }
    }
    checker.finish(list_check, &mut events).unwrap();
    if options.json {
        for event in &events {
            if let Event::Output(bytes) = event {
                assert_eq!(bytes.iter().filter(|&&b| b == b'\n').count(), 1);
                serde_json::from_slice::<serde_json::Value>(bytes).expect("valid JSON");
            }
        }
    }
});

/// `sum`'s line for the entry parses back to it (the algorithm named by its tag).
fn round_trip(entry: &parhash_format::parse::Entry, zero: bool, multipart: bool) {
    if zero && entry.name.contains(&0) {
        return;
    }
    let mut line = Vec::new();
    if let Some(label) = &entry.multipart {
        let tag = forms::tag(label.combine);
        let value = forms::value(label.combine, &label.digest, label.parts);
        write_tagged(&mut line, &tag, &value, &entry.name, zero);
    } else {
        let style = LineStyle {
            tag: true,
            zero,
            parsha: entry.parsha,
            base64: entry.name.len() % 2 == 1,
            ..LineStyle::default()
        };
        write_line(
            &mut line,
            entry.algorithm,
            &Output::from_slice(&entry.expected),
            &entry.name,
            style,
        );
    }
    match Parser::new(None, zero)
        .with_multipart(multipart)
        .parse(&line)
    {
        Line::Entry(back) => {
            assert_eq!(back.name, entry.name);
            assert_eq!(back.expected, entry.expected);
            assert_eq!(back.algorithm, entry.algorithm);
            assert_eq!(back.multipart, entry.multipart);
        }
        other => panic!("{line:?} read back as {other:?}"),
    }
}
