//! `asm!` text written as instructions: the SHA kernels' rounds are strings of instructions on
//! named operands, and `ins!` spells one so that a round reads as its instructions.

/// One instruction as `asm!` text: the mnemonic, then operands that are asm operand names
/// (written `{name}` plus the template modifier `$m`, e.g. `":e"` for 32-bit registers) or
/// literal immediates. `ins!(":e"; rorx s, b, 2)` is `"rorx {s:e}, {b:e}, 2\n"`.
macro_rules! ins {
    ($m:literal; $op:ident $($arg:tt),+) => {
        concat!(stringify!($op), " ", $crate::algo::asm_text::ins!(@args $m; $($arg),+), "\n")
    };
    (@args $m:literal; $x:tt) => {
        $crate::algo::asm_text::ins!(@one $m; $x)
    };
    (@args $m:literal; $x:tt, $($rest:tt),+) => {
        concat!(
            $crate::algo::asm_text::ins!(@one $m; $x),
            ", ",
            $crate::algo::asm_text::ins!(@args $m; $($rest),+)
        )
    };
    (@one $m:literal; $x:ident) => {
        concat!("{", stringify!($x), $m, "}")
    };
    (@one $m:literal; $x:literal) => {
        stringify!($x)
    };
}
pub(crate) use ins;
