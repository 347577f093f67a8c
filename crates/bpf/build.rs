//! Build the BPF object and its Rust skeleton. vmlinux.h comes from the
//! build machine's kernel BTF through bpftool; CO-RE relocations make the
//! object run on other kernels with BTF.

use libbpf_cargo::SkeletonBuilder;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let btf = "/sys/kernel/btf/vmlinux";
    let dump = Command::new("bpftool")
        .args(["btf", "dump", "file", btf, "format", "c"])
        .output()
        .unwrap_or_else(|e| {
            panic!("bpftool (apt-get install bpftool) is needed to read {btf}: {e}")
        });
    assert!(
        dump.status.success(),
        "bpftool btf dump {btf} failed: {}",
        String::from_utf8_lossy(&dump.stderr)
    );
    std::fs::write(out.join("vmlinux.h"), &dump.stdout).expect("write vmlinux.h");

    let src = "src/bpf/fastaudit.bpf.c";
    SkeletonBuilder::new()
        .source(src)
        .clang_args([format!("-I{}", out.display()), "-Wall".to_string()])
        .build_and_generate(out.join("fastaudit.skel.rs"))
        .expect("compile src/bpf/fastaudit.bpf.c (needs clang)");
    println!("cargo:rerun-if-changed={src}");
    println!("cargo:rerun-if-changed=src/bpf/fastaudit.h");
}
