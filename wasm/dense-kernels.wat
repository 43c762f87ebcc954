;; Dense kernels of the LSA fit (src/indexing/embedders/dense-kernels.ts loads them; scripts/build-wasm.mjs assembles
;; this file into dense-kernels.wasm). Every address is a byte offset into the exported memory; matrices are
;; row-major unless a name says columns.
;;
;; Each kernel performs the same IEEE operations in the same order as the plain JavaScript loops it replaces (no
;; fused multiply-add, no reassociated sums), so a fit is bit for bit the same: SIMD here only does two independent
;; elements at once, the way `y[c] += a * x[c]` does them one after the other.
;;
;; V8 first runs a function in its baseline compiler and switches to optimised code only at a later call, never
;; inside a running one: so the innermost loops are small functions called many times, and dense-kernels.ts calls
;; each kernel on a few rows (or one column) at a time rather than once for a whole matrix.
(module
  (memory (export "memory") 1)

  ;; y[0..n) += a · x[0..n) over doubles.
  (func $axpy (param $y i32) (param $a f64) (param $x i32) (param $n i32)
    (local $end i32) (local $pairs i32) (local $av v128)
    (local.set $av (f64x2.splat (local.get $a)))
    (local.set $end (i32.add (local.get $y) (i32.shl (local.get $n) (i32.const 3))))
    (local.set $pairs (i32.add (local.get $y) (i32.shl (i32.and (local.get $n) (i32.const -2)) (i32.const 3))))
    (block $done
      (loop $pair
        (br_if $done (i32.ge_u (local.get $y) (local.get $pairs)))
        (v128.store (local.get $y)
          (f64x2.add (v128.load (local.get $y)) (f64x2.mul (local.get $av) (v128.load (local.get $x)))))
        (local.set $y (i32.add (local.get $y) (i32.const 16)))
        (local.set $x (i32.add (local.get $x) (i32.const 16)))
        (br $pair)))
    (if (i32.lt_u (local.get $y) (local.get $end))
      (then
        (f64.store (local.get $y)
          (f64.add (f64.load (local.get $y)) (f64.mul (local.get $a) (f64.load (local.get $x))))))))

  ;; Σ a[i]·b[i] over doubles, summed in index order.
  (func $dot (param $a i32) (param $b i32) (param $n i32) (result f64)
    (local $end i32) (local $s f64)
    (local.set $end (i32.add (local.get $a) (i32.shl (local.get $n) (i32.const 3))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $a) (local.get $end)))
        (local.set $s (f64.add (local.get $s) (f64.mul (f64.load (local.get $a)) (f64.load (local.get $b)))))
        (local.set $a (i32.add (local.get $a) (i32.const 8)))
        (local.set $b (i32.add (local.get $b) (i32.const 8)))
        (br $next)))
    (local.get $s))

  ;; Y += X · W: X sparse (compressed rows: rowStart i32, indices i32, values f64), W dense (cols × l), Y (rows × l).
  (func (export "csrTimesDense")
    (param $rows i32) (param $rowStart i32) (param $indices i32) (param $values i32)
    (param $w i32) (param $y i32) (param $l i32)
    (local $i i32) (local $p i32) (local $end i32) (local $stride i32)
    (local.set $stride (i32.shl (local.get $l) (i32.const 3)))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $i) (local.get $rows)))
        (local.set $p (i32.load (i32.add (local.get $rowStart) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $end (i32.load (i32.add (local.get $rowStart) (i32.shl (i32.add (local.get $i) (i32.const 1)) (i32.const 2)))))
        (block $rowDone
          (loop $entry
            (br_if $rowDone (i32.ge_u (local.get $p) (local.get $end)))
            (call $axpy
              (i32.add (local.get $y) (i32.mul (local.get $i) (local.get $stride)))
              (f64.load (i32.add (local.get $values) (i32.shl (local.get $p) (i32.const 3))))
              (i32.add (local.get $w)
                (i32.mul (i32.load (i32.add (local.get $indices) (i32.shl (local.get $p) (i32.const 2)))) (local.get $stride)))
              (local.get $l))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (br $entry)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $row))))

  ;; Z += Xᵀ · Q: X as above, Q dense (rows × l), Z (cols × l).
  (func (export "csrTransposedTimesDense")
    (param $rows i32) (param $rowStart i32) (param $indices i32) (param $values i32)
    (param $q i32) (param $z i32) (param $l i32)
    (local $i i32) (local $p i32) (local $end i32) (local $stride i32)
    (local.set $stride (i32.shl (local.get $l) (i32.const 3)))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $i) (local.get $rows)))
        (local.set $p (i32.load (i32.add (local.get $rowStart) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $end (i32.load (i32.add (local.get $rowStart) (i32.shl (i32.add (local.get $i) (i32.const 1)) (i32.const 2)))))
        (block $rowDone
          (loop $entry
            (br_if $rowDone (i32.ge_u (local.get $p) (local.get $end)))
            (call $axpy
              (i32.add (local.get $z)
                (i32.mul (i32.load (i32.add (local.get $indices) (i32.shl (local.get $p) (i32.const 2)))) (local.get $stride)))
              (f64.load (i32.add (local.get $values) (i32.shl (local.get $p) (i32.const 3))))
              (i32.add (local.get $q) (i32.mul (local.get $i) (local.get $stride)))
              (local.get $l))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (br $entry)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $row))))

  ;; Orthonormalises columns [from, to) of the columns of length m stored one after the other, in place, against
  ;; the columns before them (already orthonormal): modified Gram-Schmidt, twice for stability; a column whose norm
  ;; falls below 1e-10 of its norm before becomes zero (it depended on the others).
  (func (export "orthonormalizeColumns") (param $cols i32) (param $m i32) (param $from i32) (param $to i32)
    (local $j i32) (local $i i32) (local $pass i32) (local $cj i32) (local $ci i32) (local $bytes i32)
    (local $before f64) (local $norm f64) (local $r f64) (local $t i32) (local $end i32)
    (local.set $bytes (i32.shl (local.get $m) (i32.const 3)))
    (local.set $j (local.get $from))
    (block $done
      (loop $column
        (br_if $done (i32.ge_u (local.get $j) (local.get $to)))
        (local.set $cj (i32.add (local.get $cols) (i32.mul (local.get $j) (local.get $bytes))))
        (local.set $before (f64.sqrt (call $dot (local.get $cj) (local.get $cj) (local.get $m))))
        (local.set $pass (i32.const 0))
        (loop $passes
          (local.set $i (i32.const 0))
          (block $earlierDone
            (loop $earlier
              (br_if $earlierDone (i32.ge_u (local.get $i) (local.get $j)))
              (local.set $ci (i32.add (local.get $cols) (i32.mul (local.get $i) (local.get $bytes))))
              (local.set $r (call $dot (local.get $ci) (local.get $cj) (local.get $m)))
              (if (f64.ne (local.get $r) (f64.const 0))
                (then (call $axpy (local.get $cj) (f64.neg (local.get $r)) (local.get $ci) (local.get $m))))
              (local.set $i (i32.add (local.get $i) (i32.const 1)))
              (br $earlier)))
          (local.set $pass (i32.add (local.get $pass) (i32.const 1)))
          (br_if $passes (i32.lt_u (local.get $pass) (i32.const 2))))
        (local.set $norm (f64.sqrt (call $dot (local.get $cj) (local.get $cj) (local.get $m))))
        (local.set $end (i32.add (local.get $cj) (local.get $bytes)))
        (local.set $t (local.get $cj))
        (if (f64.le (local.get $norm) (f64.mul (f64.const 1e-10) (f64.max (local.get $before) (f64.const 1e-300))))
          (then (memory.fill (local.get $cj) (i32.const 0) (local.get $bytes)))
          (else
            (block $scaled
              (loop $scale
                (br_if $scaled (i32.ge_u (local.get $t) (local.get $end)))
                (f64.store (local.get $t) (f64.div (f64.load (local.get $t)) (local.get $norm)))
                (local.set $t (i32.add (local.get $t) (i32.const 8)))
                (br $scale)))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $column))))

  ;; C += Qᵀ · Y for Q and Y (m × l): row by row, each non-zero Q[i][a] adding Q[i][a] · Y[i] to C[a] (l × l).
  (func (export "crossProduct") (param $q i32) (param $y i32) (param $c i32) (param $m i32) (param $l i32)
    (local $i i32) (local $a i32) (local $stride i32) (local $qa f64) (local $row i32)
    (local.set $stride (i32.shl (local.get $l) (i32.const 3)))
    (block $done
      (loop $rowLoop
        (br_if $done (i32.ge_u (local.get $i) (local.get $m)))
        (local.set $row (i32.mul (local.get $i) (local.get $stride)))
        (local.set $a (i32.const 0))
        (block $rowDone
          (loop $col
            (br_if $rowDone (i32.ge_u (local.get $a) (local.get $l)))
            (local.set $qa (f64.load (i32.add (local.get $q) (i32.add (local.get $row) (i32.shl (local.get $a) (i32.const 3))))))
            (if (f64.ne (local.get $qa) (f64.const 0))
              (then
                (call $axpy
                  (i32.add (local.get $c) (i32.mul (local.get $a) (local.get $stride)))
                  (local.get $qa)
                  (i32.add (local.get $y) (local.get $row))
                  (local.get $l))))
            (local.set $a (i32.add (local.get $a) (i32.const 1)))
            (br $col)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rowLoop))))

  ;; w[0..4) = (q · u_j) / s[j] for the four vectors u_j = u + j·stride (each l doubles): four running sums, each in
  ;; the order of the index as a plain loop sums one, so that the additions of one wait on no other's.
  (func $dot4 (param $q i32) (param $u i32) (param $stride i32) (param $l i32) (param $s i32) (param $w i32)
    (local $end i32) (local $s0 f64) (local $s1 f64) (local $s2 f64) (local $s3 f64) (local $qa f64)
    (local $u1 i32) (local $u2 i32) (local $u3 i32)
    (local.set $end (i32.add (local.get $q) (i32.shl (local.get $l) (i32.const 3))))
    (local.set $u1 (i32.add (local.get $u) (local.get $stride)))
    (local.set $u2 (i32.add (local.get $u1) (local.get $stride)))
    (local.set $u3 (i32.add (local.get $u2) (local.get $stride)))
    (block $done
      (loop $term
        (br_if $done (i32.ge_u (local.get $q) (local.get $end)))
        (local.set $qa (f64.load (local.get $q)))
        (local.set $s0 (f64.add (local.get $s0) (f64.mul (local.get $qa) (f64.load (local.get $u)))))
        (local.set $s1 (f64.add (local.get $s1) (f64.mul (local.get $qa) (f64.load (local.get $u1)))))
        (local.set $s2 (f64.add (local.get $s2) (f64.mul (local.get $qa) (f64.load (local.get $u2)))))
        (local.set $s3 (f64.add (local.get $s3) (f64.mul (local.get $qa) (f64.load (local.get $u3)))))
        (local.set $q (i32.add (local.get $q) (i32.const 8)))
        (local.set $u (i32.add (local.get $u) (i32.const 8)))
        (local.set $u1 (i32.add (local.get $u1) (i32.const 8)))
        (local.set $u2 (i32.add (local.get $u2) (i32.const 8)))
        (local.set $u3 (i32.add (local.get $u3) (i32.const 8)))
        (br $term)))
    (f64.store (local.get $w) (f64.div (local.get $s0) (f64.load (local.get $s))))
    (f64.store offset=8 (local.get $w) (f64.div (local.get $s1) (f64.load offset=8 (local.get $s))))
    (f64.store offset=16 (local.get $w) (f64.div (local.get $s2) (f64.load offset=16 (local.get $s))))
    (f64.store offset=24 (local.get $w) (f64.div (local.get $s3) (f64.load offset=24 (local.get $s)))))

  ;; W[i][k] = (Q[i] · U[k]) / s[k] for Q (m × l), U (r × l, a vector per row), s (r), W (m × r): four k at a time.
  (func (export "projectRows") (param $q i32) (param $u i32) (param $s i32) (param $w i32) (param $m i32) (param $r i32) (param $l i32)
    (local $i i32) (local $k i32) (local $stride i32) (local $qrow i32) (local $quads i32)
    (local.set $stride (i32.shl (local.get $l) (i32.const 3)))
    (local.set $quads (i32.and (local.get $r) (i32.const -4)))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $i) (local.get $m)))
        (local.set $qrow (i32.add (local.get $q) (i32.mul (local.get $i) (local.get $stride))))
        (local.set $k (i32.const 0))
        (block $quadsDone
          (loop $quad
            (br_if $quadsDone (i32.ge_u (local.get $k) (local.get $quads)))
            (call $dot4 (local.get $qrow) (i32.add (local.get $u) (i32.mul (local.get $k) (local.get $stride))) (local.get $stride)
              (local.get $l) (i32.add (local.get $s) (i32.shl (local.get $k) (i32.const 3))) (local.get $w))
            (local.set $w (i32.add (local.get $w) (i32.const 32)))
            (local.set $k (i32.add (local.get $k) (i32.const 4)))
            (br $quad)))
        ;; The last one to three k, one at a time.
        (block $restDone
          (loop $rest
            (br_if $restDone (i32.ge_u (local.get $k) (local.get $r)))
            (f64.store
              (local.get $w)
              (f64.div
                (call $dot (local.get $qrow) (i32.add (local.get $u) (i32.mul (local.get $k) (local.get $stride))) (local.get $l))
                (f64.load (i32.add (local.get $s) (i32.shl (local.get $k) (i32.const 3))))))
            (local.set $w (i32.add (local.get $w) (i32.const 8)))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br $rest)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $row))))

  ;; Out += X · P with X as above (values f64), P (cols × d) and Out (rows × d) in float32: each element as
  ;; JavaScript's `out[c] += a * p[c]` on Float32Arrays computes it, in doubles and rounded to float32 once.
  (func (export "embedRows")
    (param $rows i32) (param $rowStart i32) (param $indices i32) (param $values i32)
    (param $p i32) (param $out i32) (param $d i32)
    (local $i i32) (local $e i32) (local $end i32) (local $stride i32) (local $a f64) (local $av v128)
    (local $y i32) (local $x i32) (local $yEnd i32) (local $pairs i32)
    (local.set $stride (i32.shl (local.get $d) (i32.const 2)))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $i) (local.get $rows)))
        (local.set $e (i32.load (i32.add (local.get $rowStart) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $end (i32.load (i32.add (local.get $rowStart) (i32.shl (i32.add (local.get $i) (i32.const 1)) (i32.const 2)))))
        (block $rowDone
          (loop $entry
            (br_if $rowDone (i32.ge_u (local.get $e) (local.get $end)))
            (local.set $a (f64.load (i32.add (local.get $values) (i32.shl (local.get $e) (i32.const 3)))))
            (local.set $av (f64x2.splat (local.get $a)))
            (local.set $y (i32.add (local.get $out) (i32.mul (local.get $i) (local.get $stride))))
            (local.set $x (i32.add (local.get $p)
              (i32.mul (i32.load (i32.add (local.get $indices) (i32.shl (local.get $e) (i32.const 2)))) (local.get $stride))))
            (local.set $yEnd (i32.add (local.get $y) (local.get $stride)))
            (local.set $pairs (i32.add (local.get $y) (i32.shl (i32.and (local.get $d) (i32.const -2)) (i32.const 2))))
            (block $pairsDone
              (loop $pair
                (br_if $pairsDone (i32.ge_u (local.get $y) (local.get $pairs)))
                (v128.store64_lane 0 (local.get $y)
                  (f32x4.demote_f64x2_zero
                    (f64x2.add
                      (f64x2.promote_low_f32x4 (v128.load64_zero (local.get $y)))
                      (f64x2.mul (local.get $av) (f64x2.promote_low_f32x4 (v128.load64_zero (local.get $x)))))))
                (local.set $y (i32.add (local.get $y) (i32.const 8)))
                (local.set $x (i32.add (local.get $x) (i32.const 8)))
                (br $pair)))
            (if (i32.lt_u (local.get $y) (local.get $yEnd))
              (then
                (f32.store (local.get $y)
                  (f32.demote_f64
                    (f64.add (f64.promote_f32 (f32.load (local.get $y)))
                      (f64.mul (local.get $a) (f64.promote_f32 (f32.load (local.get $x)))))))))
            (local.set $e (i32.add (local.get $e) (i32.const 1)))
            (br $entry)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $row))))
)
