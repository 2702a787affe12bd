//! OpenSSL's libcrypto, opened at run time (`dlopen`) the first time the lab asks for an
//! OpenSSL peer, behind a safe digest context.
//!
//! Why not the `openssl` crate: it links libssl and libcrypto into the `parhash` binary, and
//! the dynamic loader then resolves their ~4,000 symbols at every start (full RELRO binds all of
//! them up front), ~0.2 ms of the 2 ms a one-small-file `parhash sum` takes, paid by every
//! command for a peer only `parhash bench` measures. Opened here, the cost falls on the
//! benchmark alone, and a machine without libcrypto runs the lab without that peer.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::sync::OnceLock;

use libloading::Library;

/// `EVP_MD` and `EVP_MD_CTX` are opaque to their users.
type EvpMd = c_void;
type EvpMdCtx = c_void;

/// The few libcrypto entry points a digest needs (OpenSSL 1.1 and 3 export all of them).
struct Api {
    get_digest_by_name: unsafe extern "C" fn(*const c_char) -> *const EvpMd,
    ctx_new: unsafe extern "C" fn() -> *mut EvpMdCtx,
    ctx_free: unsafe extern "C" fn(*mut EvpMdCtx),
    init: unsafe extern "C" fn(*mut EvpMdCtx, *const EvpMd, *mut c_void) -> c_int,
    update: unsafe extern "C" fn(*mut EvpMdCtx, *const c_void, usize) -> c_int,
    finalize: unsafe extern "C" fn(*mut EvpMdCtx, *mut u8, *mut c_uint) -> c_int,
    version: unsafe extern "C" fn(c_int) -> *const c_char,
    /// Keeps the library mapped for as long as the function pointers above are used (the
    /// process: the `Api` lives in a static).
    _library: Library,
}

/// The longest digest libcrypto writes (`EVP_MAX_MD_SIZE`).
const MAX_DIGEST: usize = 64;

/// The library names tried, newest first.
const NAMES: [&str; 3] = ["libcrypto.so.3", "libcrypto.so", "libcrypto.so.1.1"];

fn api() -> Option<&'static Api> {
    static API: OnceLock<Option<Api>> = OnceLock::new();
    API.get_or_init(|| NAMES.iter().find_map(|name| open(name)))
        .as_ref()
}

fn open(name: &str) -> Option<Api> {
    // SAFETY: loading libcrypto runs its initialisers, which have no preconditions; every
    // symbol is looked up with the C signature OpenSSL documents for it (1.1 and 3 alike), and
    // the pointers are kept only beside the `Library` that owns them.
    unsafe {
        let library = Library::new(name).ok()?;
        Some(Api {
            get_digest_by_name: *library.get(b"EVP_get_digestbyname\0").ok()?,
            ctx_new: *library.get(b"EVP_MD_CTX_new\0").ok()?,
            ctx_free: *library.get(b"EVP_MD_CTX_free\0").ok()?,
            init: *library.get(b"EVP_DigestInit_ex\0").ok()?,
            update: *library.get(b"EVP_DigestUpdate\0").ok()?,
            finalize: *library.get(b"EVP_DigestFinal_ex\0").ok()?,
            version: *library.get(b"OpenSSL_version\0").ok()?,
            _library: library,
        })
    }
}

/// The library's version line (`OpenSSL 3.0.17 1 Jul 2025`), `None` where libcrypto is absent.
pub fn version() -> Option<String> {
    let api = api()?;
    // SAFETY: `OpenSSL_version(OPENSSL_VERSION)` (0) returns a static NUL-terminated string.
    let text = unsafe { CStr::from_ptr((api.version)(0)) };
    Some(text.to_string_lossy().into_owned())
}

/// A digest algorithm of libcrypto (an `EVP_MD`, immutable and shared by all threads).
#[derive(Clone, Copy)]
pub struct MessageDigest(*const EvpMd);

// SAFETY: an `EVP_MD` is a constant table that libcrypto lets every thread use at once.
unsafe impl Send for MessageDigest {}
// SAFETY: as above.
unsafe impl Sync for MessageDigest {}

impl MessageDigest {
    /// The digest OpenSSL knows as `name` (`SHA256`, `BLAKE2B512`...), if libcrypto is here,
    /// knows it, and lets it start (legacy ones such as whirlpool may be listed yet refuse).
    pub fn from_name(name: &str) -> Option<Self> {
        let api = api()?;
        let name = CString::new(name).ok()?;
        // SAFETY: `name` is NUL-terminated; a null result means unknown.
        let md = unsafe { (api.get_digest_by_name)(name.as_ptr()) };
        let digest = (!md.is_null()).then_some(MessageDigest(md))?;
        Context::new(digest).map(|_| digest)
    }
}

/// A running digest: `EVP_MD_CTX` initialised for one [`MessageDigest`].
pub struct Context {
    api: &'static Api,
    ctx: *mut EvpMdCtx,
    digest: MessageDigest,
}

// SAFETY: an `EVP_MD_CTX` belongs to whoever holds it and may move between threads; `Context`
// is not `Sync` (every use takes `&mut self`).
unsafe impl Send for Context {}

impl Context {
    /// A fresh context, `None` if libcrypto refuses the digest.
    pub fn new(digest: MessageDigest) -> Option<Self> {
        let api = api()?;
        // SAFETY: a new context is either null or owned by us until `Drop` frees it.
        let ctx = unsafe { (api.ctx_new)() };
        if ctx.is_null() {
            return None;
        }
        let context = Context { api, ctx, digest };
        context.restart().then_some(context)
    }

    /// Initialises the context for its digest again; `false` if libcrypto refuses.
    fn restart(&self) -> bool {
        // SAFETY: `ctx` is live and `digest` a libcrypto `EVP_MD`; no engine (null).
        unsafe { (self.api.init)(self.ctx, self.digest.0, std::ptr::null_mut()) == 1 }
    }

    /// Feeds `data`.
    pub fn update(&mut self, data: &[u8]) {
        // SAFETY: `ctx` is live and initialised; `data` is valid for `data.len()` bytes.
        let ok = unsafe { (self.api.update)(self.ctx, data.as_ptr().cast(), data.len()) };
        assert_eq!(ok, 1, "libcrypto refused EVP_DigestUpdate");
    }

    /// The digest of everything fed since the last call (or since `new`); starts over.
    pub fn finish(&mut self) -> Vec<u8> {
        let mut out = [0u8; MAX_DIGEST];
        let mut len: c_uint = 0;
        // SAFETY: `ctx` is live and initialised; `out` holds `EVP_MAX_MD_SIZE` bytes, the most
        // any digest writes, and `len` receives how many it wrote.
        let ok = unsafe { (self.api.finalize)(self.ctx, out.as_mut_ptr(), &mut len) };
        assert_eq!(ok, 1, "libcrypto refused EVP_DigestFinal_ex");
        assert!(
            self.restart(),
            "libcrypto refused to restart a digest it ran"
        );
        out[..len as usize].to_vec()
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: `ctx` came from `EVP_MD_CTX_new` and is freed once, here.
        unsafe { (self.api.ctx_free)(self.ctx) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against FIPS 180-2's "abc" vector, in two updates and twice (finish restarts): skipped,
    /// and said, only where the machine has no libcrypto (CI installs it).
    #[test]
    fn sha256_of_abc_twice() {
        let Some(digest) = MessageDigest::from_name("SHA256") else {
            assert!(std::env::var_os("CI").is_none(), "CI has libcrypto");
            eprintln!("SKIPPED: no libcrypto on this machine");
            return;
        };
        let mut ctx = Context::new(digest).expect("SHA256 starts");
        for _ in 0..2 {
            ctx.update(b"a");
            ctx.update(b"bc");
            let hex: String = ctx.finish().iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(
                hex,
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
            );
        }
        assert!(MessageDigest::from_name("NO-SUCH-DIGEST").is_none());
        assert!(version().expect("loaded").starts_with("OpenSSL"));
    }
}
