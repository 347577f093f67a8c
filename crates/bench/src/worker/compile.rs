//! The compile workload: a generated C project built with make.

use super::measure::Measured;
use std::path::Path;
use std::time::Instant;

/// Generate a C project of `files` sources and time `make -jJOBS` on it.
pub(super) fn compile(dir: &Path, files: usize, jobs: usize) -> Result<Measured, String> {
    generate_project(dir, files).map_err(|e| format!("{}: {e}", dir.display()))?;
    let start = Instant::now();
    let out = std::process::Command::new("make")
        .arg(format!("-j{jobs}"))
        .arg("-s")
        .current_dir(dir)
        .output()
        .map_err(|e| format!("running make: {e}"))?;
    let secs = start.elapsed().as_secs_f64();
    if !out.status.success() {
        return Err(format!(
            "make failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(Measured {
        metric: format!("make -j{jobs}"),
        unit: "s".into(),
        value: secs,
        batches: vec![secs],
        ops: files as u64,
        seconds: secs,
    })
}

/// A small C project: a header, `files` sources with enough code to keep
/// the compiler busy, a main, a Makefile. Generated, so nothing is fetched.
pub fn generate_project(dir: &Path, files: usize) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(
        dir.join("common.h"),
        "#include <stddef.h>\n#include <string.h>\n#include <stdio.h>\n\
         struct rec { int id; double w; char name[32]; struct rec *next; };\n\
         unsigned long mix(unsigned long a, unsigned long b);\n",
    )?;
    let mut objs = Vec::new();
    let mut calls = String::new();
    for f in 0..files {
        let mut src = String::from("#include \"common.h\"\n");
        for g in 0..24 {
            src.push_str(&format!(
                "static int cmp_{f}_{g}(const void *a, const void *b) {{\n\
                   const struct rec *x = a, *y = b;\n\
                   if (x->w != y->w) return x->w < y->w ? -1 : 1;\n\
                   return strcmp(x->name, y->name);\n}}\n\
                 unsigned long work_{f}_{g}(struct rec *r, size_t n, unsigned long seed) {{\n\
                   unsigned long h = seed ^ {g}u;\n\
                   for (size_t i = 0; i < n; i++) {{\n\
                     switch ((r[i].id + {g}) % 5) {{\n\
                       case 0: h = mix(h, (unsigned long)r[i].id); break;\n\
                       case 1: h += (unsigned long)(r[i].w * {g}.5); break;\n\
                       case 2: snprintf(r[i].name, sizeof r[i].name, \"%lu-%d\", h, {f}); break;\n\
                       case 3: h ^= strlen(r[i].name) << ({g} % 7); break;\n\
                       default: r[i].w = r[i].w * 0.5 + (double)(h & 0xff);\n\
                     }}\n\
                   }}\n\
                   qsort(r, n, sizeof *r, cmp_{f}_{g});\n\
                   return h;\n}}\n"
            ));
        }
        std::fs::write(dir.join(format!("unit{f}.c")), src)?;
        objs.push(format!("unit{f}.o"));
        calls.push_str(&format!("  h = work_{f}_0(r, 64, h);\n"));
    }
    let mut main = String::from("#include \"common.h\"\n#include <stdlib.h>\n");
    main.push_str(
        "unsigned long mix(unsigned long a, unsigned long b) { return (a * 31) ^ (b + 0x9e3779b97f4a7c15ul); }\n",
    );
    for f in 0..files {
        main.push_str(&format!(
            "unsigned long work_{f}_0(struct rec *, size_t, unsigned long);\n"
        ));
    }
    main.push_str(&format!(
        "int main(void) {{\n  static struct rec r[64];\n  unsigned long h = 1;\n{calls}  printf(\"%lu\\n\", h);\n  return 0;\n}}\n"
    ));
    std::fs::write(dir.join("main.c"), main)?;
    std::fs::write(
        dir.join("Makefile"),
        format!(
            "CFLAGS = -O2 -Wall\nOBJS = main.o {}\nprog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n%.o: %.c common.h\n\t$(CC) $(CFLAGS) -c -o $@ $<\n",
            objs.join(" ")
        ),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_project_builds() {
        let dir = std::env::temp_dir().join(format!("fa-bench-cc-{}", std::process::id()));
        let m = compile(&dir, 2, 2).unwrap();
        assert!(dir.join("prog").is_file());
        assert_eq!(m.unit, "s");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
