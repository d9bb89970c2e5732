;; EdgeMT's int8 product kernels for WebAssembly's relaxed SIMD, a module of
;; its own: an engine without relaxed SIMD refuses every module that holds one
;; of its instructions, so edgemt.wasm stays SIMD128 and web/js/edgemt.mjs
;; instantiates this one beside it, on the same memory, where the engine
;; validates it. Assembled by wabt's wat2wasm (no Debian compiler emits these
;; instructions). The contract (ops/relaxed_simd_product.h): weights packed in
;; tiles of 8 columns, 4 inputs of each column in 16 bytes; activations 7-bit
;; (0..127) bytes; int32 sums out.
;;
;; i16x8.relaxed_dot_i8x16_i7x16_s (written i16x8.dot_i8x16_i7x16_s, the name
;; wabt 1.0.32 knows; the opcode is the standard's 0x112) multiplies signed weight bytes by the 7-bit
;; activation bytes and adds neighbours (pmaddubsw on x86, sdot-like on ARM);
;; i32x4.dot_i16x8_s by ones adds those pairs into 32 bits. The fused
;; i32x4.relaxed_dot_i8x16_i7x16_add_s is not used: Node.js 20's baseline
;; compiler returns twice the dot product and drops the addend, and its
;; optimizing compiler's code is slower than these (tests/bench/ANALYSIS.md).
(module
  (import "env" "memory" (memory 1))

  ;; Four rows. y[r][c] = sum_k w[c][k] x[r][k] for the `tiles` x 8 columns;
  ;; x rows x_stride bytes apart, y rows y_stride bytes apart.
  (func (export "rows4")
    (param $w i32) (param $x i32) (param $x_stride i32) (param $y i32) (param $y_stride i32)
    (param $k_quads i32) (param $tiles i32)
    (local $a00 v128) (local $a01 v128) (local $a10 v128) (local $a11 v128)
    (local $a20 v128) (local $a21 v128) (local $a30 v128) (local $a31 v128)
    (local $w0 v128) (local $w1 v128) (local $xv v128) (local $ones v128)
    (local $x1 i32) (local $x2 i32) (local $x3 i32) (local $xp i32) (local $k i32)
    (local.set $ones (v128.const i16x8 1 1 1 1 1 1 1 1))
    (loop $tile
      (local.set $a00 (v128.const i32x4 0 0 0 0)) (local.set $a01 (v128.const i32x4 0 0 0 0))
      (local.set $a10 (v128.const i32x4 0 0 0 0)) (local.set $a11 (v128.const i32x4 0 0 0 0))
      (local.set $a20 (v128.const i32x4 0 0 0 0)) (local.set $a21 (v128.const i32x4 0 0 0 0))
      (local.set $a30 (v128.const i32x4 0 0 0 0)) (local.set $a31 (v128.const i32x4 0 0 0 0))
      (local.set $xp (local.get $x))
      (local.set $x1 (i32.add (local.get $x) (local.get $x_stride)))
      (local.set $x2 (i32.add (local.get $x1) (local.get $x_stride)))
      (local.set $x3 (i32.add (local.get $x2) (local.get $x_stride)))
      (local.set $k (local.get $k_quads))
      (loop $quad
        (local.set $w0 (v128.load offset=0 (local.get $w)))
        (local.set $w1 (v128.load offset=16 (local.get $w)))
        (local.set $xv (v128.load32_splat (local.get $xp)))
        (local.set $a00 (i32x4.add (local.get $a00) (i32x4.dot_i16x8_s (local.get $ones) (i16x8.dot_i8x16_i7x16_s (local.get $w0) (local.get $xv)))))
        (local.set $a01 (i32x4.add (local.get $a01) (i32x4.dot_i16x8_s (local.get $ones) (i16x8.dot_i8x16_i7x16_s (local.get $w1) (local.get $xv)))))
        (local.set $xv (v128.load32_splat (local.get $x1)))
        (local.set $a10 (i32x4.add (local.get $a10) (i32x4.dot_i16x8_s (local.get $ones) (i16x8.dot_i8x16_i7x16_s (local.get $w0) (local.get $xv)))))
        (local.set $a11 (i32x4.add (local.get $a11) (i32x4.dot_i16x8_s (local.get $ones) (i16x8.dot_i8x16_i7x16_s (local.get $w1) (local.get $xv)))))
        (local.set $xv (v128.load32_splat (local.get $x2)))
        (local.set $a20 (i32x4.add (local.get $a20) (i32x4.dot_i16x8_s (local.get $ones) (i16x8.dot_i8x16_i7x16_s (local.get $w0) (local.get $xv)))))
        (local.set $a21 (i32x4.add (local.get $a21) (i32x4.dot_i16x8_s (local.get $ones) (i16x8.dot_i8x16_i7x16_s (local.get $w1) (local.get $xv)))))
        (local.set $xv (v128.load32_splat (local.get $x3)))
        (local.set $a30 (i32x4.add (local.get $a30) (i32x4.dot_i16x8_s (local.get $ones) (i16x8.dot_i8x16_i7x16_s (local.get $w0) (local.get $xv)))))
        (local.set $a31 (i32x4.add (local.get $a31) (i32x4.dot_i16x8_s (local.get $ones) (i16x8.dot_i8x16_i7x16_s (local.get $w1) (local.get $xv)))))
        (local.set $w (i32.add (local.get $w) (i32.const 32)))
        (local.set $xp (i32.add (local.get $xp) (i32.const 4)))
        (local.set $x1 (i32.add (local.get $x1) (i32.const 4)))
        (local.set $x2 (i32.add (local.get $x2) (i32.const 4)))
        (local.set $x3 (i32.add (local.get $x3) (i32.const 4)))
        (br_if $quad (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
      (v128.store offset=0 (local.get $y) (local.get $a00))
      (v128.store offset=16 (local.get $y) (local.get $a01))
      (local.set $xp (i32.add (local.get $y) (local.get $y_stride)))
      (v128.store offset=0 (local.get $xp) (local.get $a10))
      (v128.store offset=16 (local.get $xp) (local.get $a11))
      (local.set $xp (i32.add (local.get $xp) (local.get $y_stride)))
      (v128.store offset=0 (local.get $xp) (local.get $a20))
      (v128.store offset=16 (local.get $xp) (local.get $a21))
      (local.set $xp (i32.add (local.get $xp) (local.get $y_stride)))
      (v128.store offset=0 (local.get $xp) (local.get $a30))
      (v128.store offset=16 (local.get $xp) (local.get $a31))
      (local.set $y (i32.add (local.get $y) (i32.const 32)))
      (br_if $tile (local.tee $tiles (i32.sub (local.get $tiles) (i32.const 1))))))

  ;; One row: y[c] = sum_k w[c][k] x[k] for the `tiles` x 8 columns.
  (func (export "row1")
    (param $w i32) (param $x i32) (param $y i32) (param $k_quads i32) (param $tiles i32)
    (local $a0 v128) (local $a1 v128) (local $xv v128) (local $ones v128) (local $xp i32) (local $k i32)
    (local.set $ones (v128.const i16x8 1 1 1 1 1 1 1 1))
    (loop $tile
      (local.set $a0 (v128.const i32x4 0 0 0 0))
      (local.set $a1 (v128.const i32x4 0 0 0 0))
      (local.set $xp (local.get $x))
      (local.set $k (local.get $k_quads))
      (loop $quad
        (local.set $xv (v128.load32_splat (local.get $xp)))
        (local.set $a0 (i32x4.add (local.get $a0) (i32x4.dot_i16x8_s (local.get $ones) (i16x8.dot_i8x16_i7x16_s (v128.load offset=0 (local.get $w)) (local.get $xv)))))
        (local.set $a1 (i32x4.add (local.get $a1) (i32x4.dot_i16x8_s (local.get $ones) (i16x8.dot_i8x16_i7x16_s (v128.load offset=16 (local.get $w)) (local.get $xv)))))
        (local.set $w (i32.add (local.get $w) (i32.const 32)))
        (local.set $xp (i32.add (local.get $xp) (i32.const 4)))
        (br_if $quad (local.tee $k (i32.sub (local.get $k) (i32.const 1)))))
      (v128.store offset=0 (local.get $y) (local.get $a0))
      (v128.store offset=16 (local.get $y) (local.get $a1))
      (local.set $y (i32.add (local.get $y) (i32.const 32)))
      (br_if $tile (local.tee $tiles (i32.sub (local.get $tiles) (i32.const 1))))))
)
