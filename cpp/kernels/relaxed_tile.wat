;; The GEMM register tile with relaxed-SIMD fused multiply-add, in WebAssembly text, because clang 14
;; (Emscripten 3.1.6) emits only the pre-standard relaxed-SIMD opcodes, which Chromium no longer
;; accepts, while Debian's wabt 1.0.32 (`wat2wasm --enable-relaxed-simd`) encodes the final ones.
;;
;; Same contract as register_tile<4> in register_tile.h:
;;   c (4×8, row stride ldc floats) = (or += when accumulate ≠ 0) packed_a (depth×4) · packed_b (depth×8)
;; It shares the main module's memory (imported), and JS puts it into the main module's function table
;; in place of relaxed_tile_slot (gemm_relaxed.cpp), so the packed GEMM calls it through a pointer.
(module
  (import "env" "memory" (memory 1))
  (func (export "relaxed_tile_4x8")
    (param $depth i32) (param $a i32) (param $b i32) (param $c i32) (param $ldc i32) (param $accumulate i32)
    (local $c00 v128) (local $c01 v128) (local $c10 v128) (local $c11 v128) (local $c20 v128) (local $c21 v128) (local $c30 v128) (local $c31 v128)
    (local $b0 v128) (local $b1 v128) (local $s v128) (local $row i32) (local $stride i32)
    (block $done
      (loop $next
        (br_if $done (i32.le_s (local.get $depth) (i32.const 0)))
        (local.set $b0 (v128.load (local.get $b)))
        (local.set $b1 (v128.load offset=16 (local.get $b)))
        (local.set $s (v128.load32_splat offset=0 (local.get $a)))
        (local.set $c00 (f32x4.relaxed_madd (local.get $s) (local.get $b0) (local.get $c00)))
        (local.set $c01 (f32x4.relaxed_madd (local.get $s) (local.get $b1) (local.get $c01)))
        (local.set $s (v128.load32_splat offset=4 (local.get $a)))
        (local.set $c10 (f32x4.relaxed_madd (local.get $s) (local.get $b0) (local.get $c10)))
        (local.set $c11 (f32x4.relaxed_madd (local.get $s) (local.get $b1) (local.get $c11)))
        (local.set $s (v128.load32_splat offset=8 (local.get $a)))
        (local.set $c20 (f32x4.relaxed_madd (local.get $s) (local.get $b0) (local.get $c20)))
        (local.set $c21 (f32x4.relaxed_madd (local.get $s) (local.get $b1) (local.get $c21)))
        (local.set $s (v128.load32_splat offset=12 (local.get $a)))
        (local.set $c30 (f32x4.relaxed_madd (local.get $s) (local.get $b0) (local.get $c30)))
        (local.set $c31 (f32x4.relaxed_madd (local.get $s) (local.get $b1) (local.get $c31)))
        (local.set $a (i32.add (local.get $a) (i32.const 16)))
        (local.set $b (i32.add (local.get $b) (i32.const 32)))
        (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
        (br $next)))
    (local.set $stride (i32.shl (local.get $ldc) (i32.const 2)))
    ;; row 0
    (if (local.get $accumulate)
      (then
        (local.set $c00 (f32x4.add (local.get $c00) (v128.load (local.get $c))))
        (local.set $c01 (f32x4.add (local.get $c01) (v128.load offset=16 (local.get $c))))))
    (v128.store (local.get $c) (local.get $c00))
    (v128.store offset=16 (local.get $c) (local.get $c01))
    (local.set $c (i32.add (local.get $c) (local.get $stride)))
    ;; row 1
    (if (local.get $accumulate)
      (then
        (local.set $c10 (f32x4.add (local.get $c10) (v128.load (local.get $c))))
        (local.set $c11 (f32x4.add (local.get $c11) (v128.load offset=16 (local.get $c))))))
    (v128.store (local.get $c) (local.get $c10))
    (v128.store offset=16 (local.get $c) (local.get $c11))
    (local.set $c (i32.add (local.get $c) (local.get $stride)))
    ;; row 2
    (if (local.get $accumulate)
      (then
        (local.set $c20 (f32x4.add (local.get $c20) (v128.load (local.get $c))))
        (local.set $c21 (f32x4.add (local.get $c21) (v128.load offset=16 (local.get $c))))))
    (v128.store (local.get $c) (local.get $c20))
    (v128.store offset=16 (local.get $c) (local.get $c21))
    (local.set $c (i32.add (local.get $c) (local.get $stride)))
    ;; row 3
    (if (local.get $accumulate)
      (then
        (local.set $c30 (f32x4.add (local.get $c30) (v128.load (local.get $c))))
        (local.set $c31 (f32x4.add (local.get $c31) (v128.load offset=16 (local.get $c))))))
    (v128.store (local.get $c) (local.get $c30))
    (v128.store offset=16 (local.get $c) (local.get $c31))
  )
)
