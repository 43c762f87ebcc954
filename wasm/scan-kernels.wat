;; The vector scan's kernel (src/indexing/scan-kernels.ts loads it; scripts/build-wasm.mjs assembles this file into
;; scan-kernels.wasm). Every address is a byte offset into the exported memory.
;;
;; A quantized vector index (quantized-vector-index.ts) keeps each vector as one byte per dimension (FAISS's 8-bit
;; scalar quantizer) and a query as one 16-bit weight per dimension; a vector's approximate score is then an integer
;; dot product, which WebAssembly's i32x4.dot_i16x8_s forms eight dimensions at a time. The sums are exact integers,
;; so the order they are formed in does not matter. The other exports pick each query's best rows from its scores
;; (scoreRange, countScores, rowsFrom): plain loops that run compiled from their first call, where the same loops in
;; JavaScript run interpreted in a one-shot ask.
(module
  (memory (export "memory") 1)

  ;; out[t·stride + v] = Σ_j codes[v·d + j] · weights[t·d + j] for every vector v in [0, n) and query t in [0, q):
  ;; codes u8 (n × d), weights i16 (q × d), out i32 (q rows of `stride` bytes apart). Each vector's codes are scored
  ;; for every query while they are in the cache: the scan is bound by reading the codes (17 MB for 66k × 256), so q
  ;; queries cost about one pass, not q. Callers scale each query's weights so that 255 · Σ|weights| stays below 2³¹:
  ;; no sum, partial or whole, can overflow.
  (func (export "scanCodesMany") (param $codes i32) (param $n i32) (param $d i32) (param $weights i32) (param $q i32)
    (param $out i32) (param $stride i32)
    (local $end i32) (local $t i32) (local $w i32) (local $o i32) (local $rowBytes i32) (local $blocks i32) (local $j i32)
    (local $acc v128) (local $s i32)
    (local.set $end (i32.add (local.get $codes) (i32.mul (local.get $n) (local.get $d))))
    (local.set $blocks (i32.and (local.get $d) (i32.const -8)))
    (local.set $rowBytes (i32.shl (local.get $d) (i32.const 1)))
    (block $done
      (loop $vector
        (br_if $done (i32.ge_u (local.get $codes) (local.get $end)))
        (local.set $t (i32.const 0))
        (local.set $w (local.get $weights))
        (local.set $o (local.get $out))
        (block $queriesDone
          (loop $query
            (br_if $queriesDone (i32.ge_u (local.get $t) (local.get $q)))
            (local.set $acc (v128.const i32x4 0 0 0 0))
            (local.set $j (i32.const 0))
            (block $blocksDone
              (loop $block
                (br_if $blocksDone (i32.ge_u (local.get $j) (local.get $blocks)))
                (local.set $acc
                  (i32x4.add (local.get $acc)
                    (i32x4.dot_i16x8_s
                      (v128.load8x8_u (i32.add (local.get $codes) (local.get $j)))
                      (v128.load (i32.add (local.get $w) (i32.shl (local.get $j) (i32.const 1)))))))
                (local.set $j (i32.add (local.get $j) (i32.const 8)))
                (br $block)))
            (local.set $s
              (i32.add
                (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
                (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
            (block $tailDone
              (loop $tail
                (br_if $tailDone (i32.ge_u (local.get $j) (local.get $d)))
                (local.set $s
                  (i32.add (local.get $s)
                    (i32.mul
                      (i32.load8_u (i32.add (local.get $codes) (local.get $j)))
                      (i32.load16_s (i32.add (local.get $w) (i32.shl (local.get $j) (i32.const 1)))))))
                (local.set $j (i32.add (local.get $j) (i32.const 1)))
                (br $tail)))
            (i32.store (local.get $o) (local.get $s))
            (local.set $w (i32.add (local.get $w) (local.get $rowBytes)))
            (local.set $o (i32.add (local.get $o) (local.get $stride)))
            (local.set $t (i32.add (local.get $t) (i32.const 1)))
            (br $query)))
        (local.set $codes (i32.add (local.get $codes) (local.get $d)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $vector))))

  ;; The smallest and largest of the n ≥ 1 i32 scores at $scores, stored as two i32 at $out (smallest first).
  (func (export "scoreRange") (param $scores i32) (param $n i32) (param $out i32)
    (local $end i32) (local $s i32) (local $lo i32) (local $hi i32)
    (local.set $end (i32.add (local.get $scores) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $lo (i32.load (local.get $scores)))
    (local.set $hi (local.get $lo))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $scores) (local.get $end)))
        (local.set $s (i32.load (local.get $scores)))
        (if (i32.lt_s (local.get $s) (local.get $lo)) (then (local.set $lo (local.get $s))))
        (if (i32.gt_s (local.get $s) (local.get $hi)) (then (local.set $hi (local.get $s))))
        (local.set $scores (i32.add (local.get $scores) (i32.const 4)))
        (br $next)))
    (i32.store (local.get $out) (local.get $lo))
    (i32.store offset=4 (local.get $out) (local.get $hi)))

  ;; counts[(s − lo) >> shift] += 1 (i32 counts at $counts) for each of the n i32 scores at $scores with lo ≤ s ≤ hi.
  ;; The caller zeroes the counts and picks shift so that (hi − lo) >> shift indexes one of them; s − lo is read
  ;; unsigned, so a range wider than 2³¹ still counts right.
  (func (export "countScores") (param $scores i32) (param $n i32) (param $lo i32) (param $hi i32) (param $shift i32)
    (param $counts i32)
    (local $end i32) (local $s i32) (local $at i32)
    (local.set $end (i32.add (local.get $scores) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $scores) (local.get $end)))
        (local.set $s (i32.load (local.get $scores)))
        (if (i32.and (i32.ge_s (local.get $s) (local.get $lo)) (i32.le_s (local.get $s) (local.get $hi)))
          (then
            (local.set $at
              (i32.add (local.get $counts)
                (i32.shl (i32.shr_u (i32.sub (local.get $s) (local.get $lo)) (local.get $shift)) (i32.const 2))))
            (i32.store (local.get $at) (i32.add (i32.load (local.get $at)) (i32.const 1)))))
        (local.set $scores (i32.add (local.get $scores) (i32.const 4)))
        (br $next))))

  ;; Writes the index of every one of the n i32 scores at $scores that is ≥ $floor to $rows (i32 each), in index order,
  ;; and returns how many it wrote.
  (func (export "rowsFrom") (param $scores i32) (param $n i32) (param $floor i32) (param $rows i32) (result i32)
    (local $v i32) (local $written i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $v) (local.get $n)))
        (if (i32.ge_s (i32.load (i32.add (local.get $scores) (i32.shl (local.get $v) (i32.const 2)))) (local.get $floor))
          (then
            (i32.store (i32.add (local.get $rows) (i32.shl (local.get $written) (i32.const 2))) (local.get $v))
            (local.set $written (i32.add (local.get $written) (i32.const 1)))))
        (local.set $v (i32.add (local.get $v) (i32.const 1)))
        (br $next)))
    (local.get $written))
)
