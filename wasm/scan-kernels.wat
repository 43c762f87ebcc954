;; The vector scan's kernel (src/indexing/scan-kernels.ts loads it; scripts/build-wasm.mjs assembles this file into
;; scan-kernels.wasm). Every address is a byte offset into the exported memory.
;;
;; A quantized vector index (quantized-vector-index.ts) keeps each vector as one byte per dimension (FAISS's 8-bit
;; scalar quantizer) and a query as one 16-bit weight per dimension; a vector's approximate score is then an integer
;; dot product, which WebAssembly's i32x4.dot_i16x8_s forms eight dimensions at a time. The sums are exact integers,
;; so the order they are formed in does not matter.
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
)
