#!/usr/bin/env bash
# Installs what building and testing need and the machine lacks: Debian
# packages via apt-get (as root, or with sudo). Safe to run repeatedly.
set -euo pipefail

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup-deps: cargo (Rust toolchain) is required; install it with rustup" >&2
    exit 1
  fi
fi

apt_packages=()
command -v cmake >/dev/null 2>&1 || apt_packages+=(cmake)
command -v pkg-config >/dev/null 2>&1 || apt_packages+=(pkg-config)
command -v cc >/dev/null 2>&1 || apt_packages+=(gcc)
command -v c++ >/dev/null 2>&1 || apt_packages+=(g++)

if [ ${#apt_packages[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "setup-deps: installing ${apt_packages[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${apt_packages[@]}" >/dev/null
fi
