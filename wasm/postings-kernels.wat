;; The keyword postings' kernel (src/indexing/postings-kernels.ts loads it; scripts/build-wasm.mjs assembles this file
;; into postings-kernels.wasm). Every address is a byte offset into the exported memory.
;;
;; A keyword query is ranked by summing bm25() over its terms' postings (keyword-postings.ts), then keeping the best k
;; rows. In a one-shot ask these loops run a few times only, and in JavaScript they stay in the interpreter, which
;; boxes every intermediate double: the first two queries of an ask on a 66k-unit library took 15–17 ms each for
;; 10–25k postings. Here they run compiled from their first call. WebAssembly's f64 arithmetic is IEEE 754's, as
;; JavaScript's is, and each sum is formed in the same order as FTS5's bm25(), so every score is the same double.
(module
  (memory (export "memory") 1)

  ;; For each of the n postings p (rows u32 at $rows, doubled frequencies u16 at $doubled): with f = doubled[p] / 2,
  ;; part = idf · ((f · k1p1) / (f + norms[row])) is added `repeat` times to scores[row] (f64 at $scores, by row; norms
  ;; f64 at $norms, by row). A row whose score was 0 is first appended to the touched rows (i32 at $touched), of which
  ;; $matched are already there; returns the new count.
  (func (export "accumulate") (param $rows i32) (param $doubled i32) (param $n i32) (param $idf f64) (param $k1p1 f64)
    (param $repeat i32) (param $norms i32) (param $scores i32) (param $touched i32) (param $matched i32) (result i32)
    (local $p i32) (local $row i32) (local $f f64) (local $part f64) (local $at i32) (local $s f64) (local $r i32)
    (block $done
      (loop $posting
        (br_if $done (i32.ge_u (local.get $p) (local.get $n)))
        (local.set $row (i32.load (i32.add (local.get $rows) (i32.shl (local.get $p) (i32.const 2)))))
        (local.set $f
          (f64.div
            (f64.convert_i32_u (i32.load16_u (i32.add (local.get $doubled) (i32.shl (local.get $p) (i32.const 1)))))
            (f64.const 2)))
        (local.set $part
          (f64.mul (local.get $idf)
            (f64.div
              (f64.mul (local.get $f) (local.get $k1p1))
              (f64.add (local.get $f) (f64.load (i32.add (local.get $norms) (i32.shl (local.get $row) (i32.const 3))))))))
        (local.set $at (i32.add (local.get $scores) (i32.shl (local.get $row) (i32.const 3))))
        (local.set $s (f64.load (local.get $at)))
        (if (f64.eq (local.get $s) (f64.const 0))
          (then
            (i32.store (i32.add (local.get $touched) (i32.shl (local.get $matched) (i32.const 2))) (local.get $row))
            (local.set $matched (i32.add (local.get $matched) (i32.const 1)))))
        (local.set $s (f64.add (local.get $s) (local.get $part)))
        (local.set $r (i32.const 1))
        (block $repeated
          (loop $again
            (br_if $repeated (i32.ge_u (local.get $r) (local.get $repeat)))
            (local.set $s (f64.add (local.get $s) (local.get $part)))
            (local.set $r (i32.add (local.get $r) (i32.const 1)))
            (br $again)))
        (f64.store (local.get $at) (local.get $s))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $posting)))
    (local.get $matched))

  ;; Whether (score a, row a) ranks below (score b, row b): a lower score, or an equal score and a higher row.
  (func $worse (param $sa f64) (param $ra i32) (param $sb f64) (param $rb i32) (result i32)
    (i32.or
      (f64.lt (local.get $sa) (local.get $sb))
      (i32.and (f64.eq (local.get $sa) (local.get $sb)) (i32.gt_u (local.get $ra) (local.get $rb)))))

  ;; Whether heap entry i ranks below heap entry j (scores f64 at $hs, rows i32 at $hr).
  (func $below (param $hs i32) (param $hr i32) (param $i i32) (param $j i32) (result i32)
    (call $worse
      (f64.load (i32.add (local.get $hs) (i32.shl (local.get $i) (i32.const 3))))
      (i32.load (i32.add (local.get $hr) (i32.shl (local.get $i) (i32.const 2))))
      (f64.load (i32.add (local.get $hs) (i32.shl (local.get $j) (i32.const 3))))
      (i32.load (i32.add (local.get $hr) (i32.shl (local.get $j) (i32.const 2))))))

  (func $swap (param $hs i32) (param $hr i32) (param $i i32) (param $j i32)
    (local $s f64) (local $r i32) (local $si i32) (local $sj i32) (local $ri i32) (local $rj i32)
    (local.set $si (i32.add (local.get $hs) (i32.shl (local.get $i) (i32.const 3))))
    (local.set $sj (i32.add (local.get $hs) (i32.shl (local.get $j) (i32.const 3))))
    (local.set $ri (i32.add (local.get $hr) (i32.shl (local.get $i) (i32.const 2))))
    (local.set $rj (i32.add (local.get $hr) (i32.shl (local.get $j) (i32.const 2))))
    (local.set $s (f64.load (local.get $si)))
    (local.set $r (i32.load (local.get $ri)))
    (f64.store (local.get $si) (f64.load (local.get $sj)))
    (i32.store (local.get $ri) (i32.load (local.get $rj)))
    (f64.store (local.get $sj) (local.get $s))
    (i32.store (local.get $rj) (local.get $r)))

  ;; The best k of the $matched touched rows (i32 at $touched) by their scores (f64 at $scores, by row), kept in a
  ;; bounded min-heap (the worst kept at the root) of scores at $hs and rows at $hr; every touched row's score is set
  ;; back to 0 on the way, ready for the next query. Returns how many the heap holds (min(k, matched)), in heap order.
  (func (export "best") (param $touched i32) (param $matched i32) (param $scores i32) (param $k i32) (param $hs i32)
    (param $hr i32) (result i32)
    (local $i i32) (local $row i32) (local $s f64) (local $at i32) (local $count i32) (local $c i32) (local $parent i32)
    (local $left i32) (local $right i32) (local $worst i32)
    (block $done
      (loop $offer
        (br_if $done (i32.ge_u (local.get $i) (local.get $matched)))
        (local.set $row (i32.load (i32.add (local.get $touched) (i32.shl (local.get $i) (i32.const 2)))))
        (local.set $at (i32.add (local.get $scores) (i32.shl (local.get $row) (i32.const 3))))
        (local.set $s (f64.load (local.get $at)))
        (f64.store (local.get $at) (f64.const 0))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (if (i32.lt_u (local.get $count) (local.get $k))
          (then
            ;; Not full: append, then sift up.
            (f64.store (i32.add (local.get $hs) (i32.shl (local.get $count) (i32.const 3))) (local.get $s))
            (i32.store (i32.add (local.get $hr) (i32.shl (local.get $count) (i32.const 2))) (local.get $row))
            (local.set $c (local.get $count))
            (local.set $count (i32.add (local.get $count) (i32.const 1)))
            (block $up
              (loop $climb
                (br_if $up (i32.eqz (local.get $c)))
                (local.set $parent (i32.shr_u (i32.sub (local.get $c) (i32.const 1)) (i32.const 1)))
                (br_if $up (i32.eqz (call $below (local.get $hs) (local.get $hr) (local.get $c) (local.get $parent))))
                (call $swap (local.get $hs) (local.get $hr) (local.get $c) (local.get $parent))
                (local.set $c (local.get $parent))
                (br $climb))))
          (else
            ;; Full: a row better than the root replaces it, then sifts down.
            ;; (k is not 0 here: a full heap of 0 keeps nothing, and the caller asks for at least one row.)
            (if (call $worse (f64.load (local.get $hs)) (i32.load (local.get $hr)) (local.get $s) (local.get $row))
              (then
                (f64.store (local.get $hs) (local.get $s))
                (i32.store (local.get $hr) (local.get $row))
                (local.set $c (i32.const 0))
                (block $settled
                  (loop $sink
                    (local.set $left (i32.add (i32.shl (local.get $c) (i32.const 1)) (i32.const 1)))
                    (local.set $right (i32.add (local.get $left) (i32.const 1)))
                    (local.set $worst (local.get $c))
                    (if (i32.lt_u (local.get $left) (local.get $count))
                      (then
                        (if (call $below (local.get $hs) (local.get $hr) (local.get $left) (local.get $worst))
                          (then (local.set $worst (local.get $left))))))
                    (if (i32.lt_u (local.get $right) (local.get $count))
                      (then
                        (if (call $below (local.get $hs) (local.get $hr) (local.get $right) (local.get $worst))
                          (then (local.set $worst (local.get $right))))))
                    (br_if $settled (i32.eq (local.get $worst) (local.get $c)))
                    (call $swap (local.get $hs) (local.get $hr) (local.get $c) (local.get $worst))
                    (local.set $c (local.get $worst))
                    (br $sink)))))))
        (br $offer)))
    (local.get $count)))
