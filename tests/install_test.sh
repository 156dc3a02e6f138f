#!/usr/bin/env bash
# Install test: `meson install` a build into a scratch DESTDIR, check what lands there, then build
# examples/embed.c against the installed headers and library through pkg-config, as a user would.
#
# usage: install_test.sh BUILD_DIR SOURCE_DIR [B_SANITIZE]
#   B_SANITIZE is meson's b_sanitize option of that build ("none", "address,undefined", ...):
#   a library built with sanitizers only links into a program built with the same ones.
# Exit 0 = pass, 1 = fail, 99 = the test itself broke. A missing tool fails the test: the
# README's commands install every one of them.
set -u

build=${1:?usage: install_test.sh BUILD_DIR SOURCE_DIR [B_SANITIZE]}
src=${2:?usage: install_test.sh BUILD_DIR SOURCE_DIR [B_SANITIZE]}
sanitize=${3:-none}
cc=${CC:-cc}

fail() { echo "install_test: FAIL: $*" >&2; exit 1; }
missing() { echo "install_test: FAIL: $* (the README's make test installs it)" >&2; exit 1; }
step() { echo "install_test: $*"; }

command -v meson >/dev/null || missing "meson not found"
command -v pkg-config >/dev/null || missing "pkg-config not found"
command -v "$cc" >/dev/null || missing "no C compiler ($cc)"
[ -f "$build/meson-private/install.dat" ] || { echo "install_test: $build is not a meson build" >&2; exit 99; }

dest=$(mktemp -d "${TMPDIR:-/tmp}/hitfam-install.XXXXXX") || exit 99
scratch=$dest
trap 'rm -rf "$scratch"' EXIT

# --no-rebuild: meson test has already built everything, and a second ninja running inside
# `meson test` could race with other tests reading the build tree.
step "meson install --destdir $dest/root"
meson install -C "$build" --no-rebuild --destdir "$dest/root" >"$dest/install.log" 2>&1 ||
    { cat "$dest/install.log" >&2; fail "meson install failed"; }
dest="$dest/root"

# Locate the installed tree from the .pc file, so that any --prefix/--libdir works.
pc=$(find "$dest" -name hitfam.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || fail "no pkgconfig/hitfam.pc installed"
pcdir=$(dirname "$pc")
libdir=$(dirname "$pcdir")
prefix=$(sed -n 's/^prefix=//p' "$pc")
[ -n "$prefix" ] || fail "hitfam.pc has no prefix= line"
root="$dest$prefix"
step "installed under $root (libdir $libdir)"

# What a package must ship.
for f in include/hitfam/hitfam.h include/hitfam/count.h include/hitfam/enum.h include/hitfam/version.h include/hitfam/order.h \
         share/man/man1/hitfam.1 bin/hitfam; do
    [ -f "$root/$f" ] || fail "not installed: $prefix/$f"
done
for f in libhitfam.so libhitfam.a; do
    [ -e "$libdir/$f" ] || fail "not installed: ${libdir#"$dest"}/$f"
done
grep -q '^\.TH' "$root/share/man/man1/hitfam.1" || fail "hitfam.1 is not a man page (no .TH)"

# The .pc file says prefix=/usr/local; PKG_CONFIG_SYSROOT_DIR makes pkg-config prepend the
# DESTDIR to every -I and -L it prints, which is how cross and staged builds consume it. The
# system's own .pc directories stay on the search path for Requires.private (gmp, libcgraph).
export PKG_CONFIG_PATH="$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_SYSROOT_DIR="$dest"
pkg-config --exists hitfam || fail "pkg-config cannot find hitfam: $(pkg-config --print-errors --exists hitfam 2>&1)"
version=$(pkg-config --modversion hitfam)
cflags=$(pkg-config --cflags hitfam) || fail "pkg-config --cflags hitfam"
libs=$(pkg-config --libs hitfam) || fail "pkg-config --libs hitfam"
step "pkg-config hitfam $version: cflags '$cflags' libs '$libs'"
case " $cflags " in *" -I$root/include "*) ;; *) fail "cflags do not point into DESTDIR: $cflags" ;; esac
case " $libs " in *" -L$libdir "*) ;; *) fail "libs do not point into DESTDIR: $libs" ;; esac

san_flags=()
case "$sanitize" in
    none | "") ;;
    *) san_flags=("-fsanitize=$sanitize") ;;
esac

work="$scratch/work"
mkdir -p "$work" || exit 99
# Strict flags: the installed header must compile cleanly as plain C11 in someone else's build,
# without the project's include path or its definitions.
# shellcheck disable=SC2086  # pkg-config output is a list of words
"$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror "${san_flags[@]}" $cflags \
    -o "$work/embed" "$src/examples/embed.c" $libs ||
    fail "cannot build examples/embed.c against the installed library"

# The program must find the installed library, not the one in the build tree.
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if command -v ldd >/dev/null; then
    resolved=$(ldd "$work/embed" | awk '$1 ~ /^libhitfam\.so/ { print $3 }')
    [ "$resolved" -ef "$libdir/libhitfam.so" ] ||
        fail "embed resolves libhitfam to '$resolved', not the installed $libdir/libhitfam.so"
fi
for d in 2 3; do
    out=$("$work/embed" "$src/examples/page.dot" "$d") || fail "embed page.dot $d exited $?"
    grep -qx "verified: $d-hitting" <<<"$out" || fail "embed page.dot $d did not verify: $out"
    grep -q "^hitfam $version " <<<"$out" || fail "embed reports another library version: $(head -n 1 <<<"$out")"
done
step "embed.c built against the installed shared library and ran (d = 2, 3)"

# Static linking needs the private dependencies (gmp, libcgraph) that the .pc file lists.
static_libs=$(pkg-config --static --libs hitfam) || fail "pkg-config --static --libs hitfam"
static_libs=${static_libs//-lhitfam/$libdir/libhitfam.a}
# shellcheck disable=SC2086
"$cc" -std=c11 "${san_flags[@]}" $cflags -o "$work/embed-static" "$src/examples/embed.c" \
    $static_libs || fail "cannot link examples/embed.c with libhitfam.a and: $static_libs"
"$work/embed-static" "$src/examples/page.dot" 3 >/dev/null || fail "statically linked embed failed"
step "embed.c linked statically with libhitfam.a and ran"

# The installed CLI runs too (the man page's first command).
"$root/bin/hitfam" --version >/dev/null || fail "installed hitfam --version failed"
"$root/bin/hitfam" stats --d 2 "$src/examples/page.dot" >/dev/null || fail "installed hitfam stats failed"
step "PASS"
