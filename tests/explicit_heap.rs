//! Heap contents in the explicit-value analysis: programs in the style of sv-benchmarks'
//! heap-manipulation and list-properties tasks (singly and doubly linked lists, trees,
//! aliasing, free and malloc again), each with a buggy twin. The explicit analysis decides
//! them where the state space is finite, gives up where it is not, never answers wrongly, and
//! every `false` replays on the interpreter; predicate and CHC stay sound on them.

#[path = "support/memory_programs.rs"]
mod memory_programs;

use baton::analyses::{AnalysisKind, AnalysisOutcome};
use baton::cfa::types::DataModel;
use baton::verdict::Verdict;
use memory_programs::{program, verify};

const HEAP: &str =
    "typedef unsigned long size_t;\nextern void *malloc(size_t);\nextern void *calloc(size_t, size_t);\n\
                    extern void *realloc(void *, size_t);\nextern void free(void *);\n";

/// A singly linked list built while `more` holds, nodes holding 1, walked and checked (`bad`:
/// the third node holds 2), then freed.
fn sll(more: &str, bad: bool) -> String {
    format!(
        "struct node {{ int data; struct node *next; }};\n\
         int main(void) {{\n  struct node *head = 0;\n  int made = 0;\n  \
         while ({more}) {{\n    struct node *x = malloc(sizeof(struct node));\n    if (!x) abort();\n    \
         x->data = ({bad} && made == 2) ? 2 : 1;\n    x->next = head;\n    head = x;\n    made++;\n  }}\n  \
         int count = 0;\n  for (struct node *p = head; p; p = p->next) {{\n    \
         if (p->data != 1) reach_error();\n    count++;\n  }}\n  if (count != made) reach_error();\n  \
         while (head) {{\n    struct node *next = head->next;\n    free(head);\n    head = next;\n  }}\n  \
         return 0;\n}}\n",
        bad = i32::from(bad)
    )
}

/// A doubly linked list of three nodes appended at the tail, walked forward and back with its
/// links checked (`bad`: the last node's `prev` points to itself).
fn dll(bad: bool) -> String {
    let prev = if bad { "x" } else { "tail" };
    format!(
        "struct dnode {{ int data; struct dnode *next; struct dnode *prev; }};\n\
         int main(void) {{\n  struct dnode *head = 0, *tail = 0;\n  for (int i = 0; i < 3; i++) {{\n    \
         struct dnode *x = malloc(sizeof(struct dnode));\n    x->data = i;\n    x->next = 0;\n    \
         x->prev = i == 2 ? {prev} : tail;\n    if (tail) tail->next = x; else head = x;\n    tail = x;\n  }}\n  \
         int sum = 0;\n  for (struct dnode *p = head; p->next; p = p->next) {{\n    \
         if (p->next->prev != p) reach_error();\n  }}\n  for (struct dnode *p = tail; p; p = p->prev) {{\n    \
         sum += p->data;\n    if (p->prev == p) break;\n  }}\n  if (sum != 3) reach_error();\n  return 0;\n}}\n"
    )
}

/// A tree of depth 2 (a root and two leaves) with nondet-chosen leaf values 1 or 2; the check
/// needs the sum below 5 (`bad`: below 4, which 2 + 2 breaks).
fn tree(bad: bool) -> String {
    let bound = if bad { 4 } else { 5 };
    format!(
        "struct tree {{ int value; struct tree *left; struct tree *right; }};\n\
         struct tree *leaf(void) {{\n  struct tree *t = malloc(sizeof(struct tree));\n  \
         t->value = __VERIFIER_nondet_int() ? 2 : 1;\n  \
         t->left = 0;\n  t->right = 0;\n  return t;\n}}\n\
         int main(void) {{\n  struct tree *root = malloc(sizeof(struct tree));\n  root->value = 0;\n  \
         root->left = leaf();\n  root->right = leaf();\n  int sum = root->value + root->left->value + \
         root->right->value;\n  if (root->left->left || root->right->right) reach_error();\n  \
         if (sum >= {bound}) reach_error();\n  free(root->left);\n  free(root->right);\n  free(root);\n  \
         return 0;\n}}\n"
    )
}

/// Two pointers to one block: a write through one is read through the other.
fn alias(bad: bool) -> String {
    let check = if bad { "!=" } else { "==" };
    format!(
        "struct pair {{ int a; int b; }};\n\
         int main(void) {{\n  struct pair *p = malloc(sizeof(struct pair));\n  struct pair *q = p;\n  \
         p->a = 1;\n  q->a = 5;\n  q->b = p->a + 1;\n  if (!(p->a {check} 5 && p->b == 6)) reach_error();\n  \
         free(q);\n  return 0;\n}}\n"
    )
}

/// A block freed and another allocated: the new block has its own contents (`bad`: the check
/// expects the old ones).
fn free_then_malloc(bad: bool) -> String {
    let expected = if bad { 1 } else { 2 };
    format!(
        "int main(void) {{\n  int *p = malloc(sizeof(int));\n  *p = 1;\n  free(p);\n  \
         int *q = malloc(sizeof(int));\n  *q = 2;\n  int *r = calloc(2, sizeof(int));\n  \
         if (*q != {expected} || r[1] != 0) reach_error();\n  free(q);\n  free(r);\n  return 0;\n}}\n"
    )
}

fn outcome(kind: AnalysisKind, text: &str) -> AnalysisOutcome {
    verify(
        kind,
        &program("heap.c", &format!("{HEAP}{text}"), DataModel::LP64),
    )
}

/// Never a wrong verdict; a `false` replays to the error.
fn assert_sound(kind: AnalysisKind, text: &str, safe: bool) -> AnalysisOutcome {
    let out = outcome(kind, text);
    let wrong = if safe { Verdict::False } else { Verdict::True };
    assert_ne!(out.verdict, wrong, "{kind:?} ({}) on\n{text}", out.reason);
    if out.verdict == Verdict::False {
        let cex = out
            .counterexample
            .as_ref()
            .expect("a false has its counterexample");
        assert!(cex.replay.is_error(), "{kind:?} on\n{text}");
    }
    out
}

/// Each program with a finite state space, correct and buggy: the explicit analysis decides
/// it; predicate and CHC never answer wrongly.
#[test]
fn finite_heap_programs_are_decided() {
    let pairs: Vec<(&str, String, String)> = vec![
        ("sll of 5", sll("made < 5", false), sll("made < 5", true)),
        (
            "sll of 0..5",
            sll("made < 5 && __VERIFIER_nondet_int()", false),
            sll("made < 5 && __VERIFIER_nondet_int()", true),
        ),
        ("dll", dll(false), dll(true)),
        ("tree", tree(false), tree(true)),
        ("alias", alias(false), alias(true)),
        ("free, malloc", free_then_malloc(false), free_then_malloc(true)),
    ];
    for (name, safe, buggy) in &pairs {
        let out = assert_sound(AnalysisKind::Explicit, safe, true);
        assert_eq!(out.verdict, Verdict::True, "{name}: {}", out.reason);
        let out = assert_sound(AnalysisKind::Explicit, buggy, false);
        assert_eq!(out.verdict, Verdict::False, "{name} (buggy): {}", out.reason);
        for kind in [AnalysisKind::Predicate, AnalysisKind::Chc] {
            assert_sound(kind, safe, true);
            assert_sound(kind, buggy, false);
        }
    }
}

/// A list as long as the nondet values say: the states never repeat, so the explicit analysis
/// gives up (never a hang or a wrong verdict); a bug in the first nodes is still found.
#[test]
fn unbounded_lists_end_in_a_give_up() {
    let unbounded = "struct node { int data; struct node *next; };\n\
                     int main(void) {\n  struct node *head = 0;\n  while (__VERIFIER_nondet_int()) {\n    \
                     struct node *x = malloc(sizeof(struct node));\n    x->data = 1;\n    x->next = head;\n    \
                     head = x;\n  }\n  for (struct node *p = head; p; p = p->next)\n    \
                     if (p->data != 1) reach_error();\n  return 0;\n}\n";
    let out = assert_sound(AnalysisKind::Explicit, unbounded, true);
    assert_eq!(out.verdict, Verdict::Unknown);
    assert!(out.reason.contains("gave up"), "{}", out.reason);
    let buggy = unbounded.replace("x->data = 1;", "x->data = head ? 1 : 7;");
    let out = assert_sound(AnalysisKind::Explicit, &buggy, false);
    assert_eq!(out.verdict, Verdict::False, "{}", out.reason);
}

/// A write through a pointer the analysis does not know (read from a block after a write
/// through another unknown pointer) reaches every block: what it knew of them is forgotten,
/// so it cannot prove the write did not happen.
#[test]
fn writes_through_unknown_pointers_forget_the_heap() {
    let text = |check: &str| {
        format!(
            "int main(void) {{\n  int *a = malloc(sizeof(int));\n  int **slot = malloc(sizeof(int *));\n  \
             *slot = a;\n  int n = __VERIFIER_nondet_int();\n  if (n <= 0) return 0;\n  \
             char *big = malloc(n);\n  int *c = malloc(sizeof(int));\n  *c = 3;\n  *a = 1;\n  \
             int *q = *slot;\n  *q = 5;\n  if ({check}) reach_error();\n  free(c);\n  free(big);\n  \
             return 0;\n}}\n"
        )
    };
    // `c` has an unknown address (after a block of unknown size): the write through it may
    // have reached `*slot`, so `q` is unknown and `*a` is not known to stay 1.
    let out = assert_sound(AnalysisKind::Explicit, &text("*a == 5"), false);
    assert_eq!(out.verdict, Verdict::False, "{}", out.reason);
    assert_sound(AnalysisKind::Explicit, &text("*a != 5"), true);
}
