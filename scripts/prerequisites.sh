#!/usr/bin/env bash
# Basalt's prerequisites, shared by ./basalt, ./run-tests and .ci/run: a JDK 17+, Maven, a C compiler (for the
# measuring harness), and the Zydis 4.0 shared library (Debian package libzydis4.0). Sourced, it defines
# functions; run directly, it installs
# whatever is missing (with --tests also llvm-14 and llvm-19, whose llvm-mc/llvm-mca some tests compare against, perf
# for the test of analyze --profile, and Chromium with its ChromeDriver for the web page's browser test).
# Installs use apt-get when we are root or have password-less sudo; otherwise we print the one command to run.

basalt_log() { printf 'basalt: %s\n' "$*" >&2; }

# Runs apt-get with root rights if we can get them without a prompt; returns 1 if we cannot.
basalt_apt_install() {
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo"; else return 1; fi
  fi
  command -v apt-get >/dev/null 2>&1 || return 1
  basalt_log "installing $* with apt-get (one time)"
  # A fresh machine has no package lists yet; refresh them once if the install cannot find the package.
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "$@" >&2 ||
    { $sudo apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "$@" >&2; }
}

basalt_need() { # package, human description
  basalt_apt_install "$1" && return 0
  basalt_log "$2 is missing. Install it with:  sudo apt-get install $1"
  exit 1
}

basalt_zydis_present() {
  if [ -n "${BASALT_ZYDIS_LIB:-}" ]; then [ -r "$BASALT_ZYDIS_LIB" ]; return; fi
  ldconfig -p 2>/dev/null | grep -q 'libZydis\.so\.4\.0 ' && return 0
  local d
  for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do
    [ -e "$d/libZydis.so.4.0" ] && return 0
  done
  return 1
}

basalt_java_ok() {
  command -v java >/dev/null 2>&1 || return 1
  local v
  v=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p')
  [ -n "$v" ] && [ "${v%%.*}" -ge 17 ] 2>/dev/null
}

basalt_ensure_runtime() {
  basalt_java_ok || basalt_need openjdk-17-jdk-headless "Java 17 or newer"
  if [ -n "${BASALT_ZYDIS_LIB:-}" ] && [ ! -r "$BASALT_ZYDIS_LIB" ]; then
    basalt_log "BASALT_ZYDIS_LIB is set to $BASALT_ZYDIS_LIB, which is not a readable file; unset it to use libzydis4.0"
    exit 1
  fi
  basalt_zydis_present || basalt_need libzydis4.0 "The Zydis 4.0 disassembler library (libZydis.so.4.0)"
  basalt_zydis_present || { basalt_log "libzydis4.0 installed but libZydis.so.4.0 still not found"; exit 1; }
}

basalt_ensure_build() {
  basalt_ensure_runtime
  command -v mvn >/dev/null 2>&1 || basalt_need maven "Apache Maven"
  command -v javac >/dev/null 2>&1 || basalt_need openjdk-17-jdk-headless "A JDK (javac)"
  # The measure module compiles its harness (measure/src/main/c) with the system C compiler.
  command -v cc >/dev/null 2>&1 || basalt_need gcc "A C compiler (cc), which builds basalt measure's harness"
}

# Optional for tests: without llvm-14 the tests that compare against llvm-mc/llvm-mca skip with a reason.
basalt_ensure_test_tools() {
  basalt_ensure_build
  if ! command -v llvm-mc-14 >/dev/null 2>&1; then
    basalt_apt_install llvm-14 ||
      basalt_log "llvm-14 not installed (sudo apt-get install llvm-14); tests that compare with llvm-mc-14 will skip"
  fi
  # basalt mca's tests compare its sections with llvm-mca-19's (Debian bookworm has llvm-19).
  if ! command -v llvm-mca-19 >/dev/null 2>&1; then
    basalt_apt_install llvm-19 ||
      basalt_log "llvm-19 not installed (sudo apt-get install llvm-19); tests that compare with llvm-mca-19 will skip"
  fi
  # analyze --profile's test profiles a program it builds with perf (Debian: linux-perf).
  if ! command -v perf >/dev/null 2>&1; then
    basalt_apt_install linux-perf ||
      basalt_log "linux-perf not installed (sudo apt-get install linux-perf); the test of analyze --profile will skip"
  fi
  # The web page's browser test drives Debian's headless Chromium through its ChromeDriver.
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    basalt_apt_install chromium chromium-driver ||
      basalt_log "chromium not installed (sudo apt-get install chromium chromium-driver); the page's browser test will skip"
  fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  if [ "${1:-}" = "--tests" ]; then basalt_ensure_test_tools; else basalt_ensure_build; fi
fi
