# Sourced by the build scripts. Debian's Emscripten finds its JS dependencies (acorn, …) only here.
export NODE_PATH=/usr/share/nodejs
JOBS="${JOBS:-$(nproc)}"
