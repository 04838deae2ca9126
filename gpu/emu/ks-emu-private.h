/* ks-emu-private.h: what the files behind ks-emu.h share.
 *
 * The text goes through ks-ptx-lex.c (tokens) and the parser
 * (ks-ptx-parse*.c: directives, declarations, statements) into the module's
 * storage (ks-emu-program.c); ks-emu-decode.c hands each instruction to the
 * decoder of its group (ks-emu-exec-*.c, each with the handlers it decodes
 * to), which turns operands into slots with ks-emu-operand.c.
 * ks-emu-module.c lays out what the module holds; ks-emu-launch.c runs
 * blocks on worker threads and ks-emu-exec-control.c their warps;
 * ks-emu-memory.c resolves and checks addresses; ks-emu-finding.c and
 * ks-emu-printf.c write what a run reports; ks-emu-fp.c has the f16/bf16
 * roundings. The files use each other in that order only (no circle:
 * tests/check-layers.py checks it).
 *
 * One header for all of them, over 800 lines, because they share one data
 * model (the module's functions and instructions, a run's blocks, warps and
 * memory, and the executors' macros): a header per file would repeat it.
 *
 * The register file of a warp is laid out [slot][lane], one guint64 a lane,
 * so that an instruction is one tight loop over the lanes of its operands.
 * Every operand is a slot: registers, special registers (%tid.x …) and
 * immediates alike (an immediate is a slot filled with its value once per
 * worker), so that no handler looks at an operand's kind per lane.
 * Predicates are one lane mask a register. */
#pragma once

#include <string.h>

#include "ks-emu.h"

G_BEGIN_DECLS

#define KS_EMU_WARP_SIZE 32
#define KS_EMU_FULL_MASK 0xffffffffu

/* The generic address space, as cvta maps it: the windows of shared, local
 * and kernel-parameter memory, the module's .global/.const variables and the
 * launch's buffers (KS_EMU_GLOBAL_BASE); anything else is global memory
 * that no allocation covers. */
#define KS_EMU_SHARED_WINDOW  G_GUINT64_CONSTANT (0x0000100000000000)
#define KS_EMU_LOCAL_WINDOW   G_GUINT64_CONSTANT (0x0000200000000000)
#define KS_EMU_PARAM_WINDOW   G_GUINT64_CONSTANT (0x0000300000000000)
#define KS_EMU_WINDOW_SIZE    G_GUINT64_CONSTANT (0x0000010000000000)
#define KS_EMU_MODULE_BASE    G_GUINT64_CONSTANT (0x0000600000000000)
/* Between two buffers at least this much unmapped space, so that an overrun
 * of one is reported against it instead of landing in the next. */
#define KS_EMU_BUFFER_GAP     G_GUINT64_CONSTANT (0x0000000100000000)

/* The most slots (registers and constants) and predicates a module may
 * have: a warp's register file is slots × 32 × 8 bytes, 4 MiB at most.
 * NVRTC's largest kernels use a few thousand. */
#define KS_EMU_MAX_SLOTS 16384
#define KS_EMU_MAX_PREDS 65536
/* Parameter bytes: CUDA's limit for a kernel's (sm_70 and newer), and what
 * a lane may have for all the device functions' parameters together. */
#define KS_EMU_MAX_KERNEL_PARAMS 32764
#define KS_EMU_MAX_FUNC_PARAMS (256u * 1024u)

/* Calls nested deeper than this are a STACK finding (recursion gone wrong). */
#define KS_EMU_MAX_CALL_DEPTH 1024
/* Warp instructions a warp runs before the next warp of its block gets a turn,
 * so that a warp spinning on another's flag in shared memory cannot starve it. */
#define KS_EMU_WARP_SLICE 4096
/* Warp instructions between two looks at the clock and the cancellable. */
#define KS_EMU_CHECK_INTERVAL 65536

/* ---- PTX types ------------------------------------------------------------ */

typedef enum
{
  KS_PTX_NONE,
  KS_PTX_B8, KS_PTX_B16, KS_PTX_B32, KS_PTX_B64, KS_PTX_B128,
  KS_PTX_U8, KS_PTX_U16, KS_PTX_U32, KS_PTX_U64,
  KS_PTX_S8, KS_PTX_S16, KS_PTX_S32, KS_PTX_S64,
  KS_PTX_F16, KS_PTX_F16X2, KS_PTX_BF16, KS_PTX_BF16X2, KS_PTX_F32, KS_PTX_F64,
  KS_PTX_PRED,
} KsPtxType;

guint         _ks_ptx_type_size          (KsPtxType type);   /* bytes; 0 for .pred */
gboolean      _ks_ptx_type_is_signed     (KsPtxType type);
gboolean      _ks_ptx_type_is_float      (KsPtxType type);   /* f16 … f64, bf16, the x2 pairs */
KsPtxType     _ks_ptx_type_from_name     (const char *name); /* "f32" → KS_PTX_F32 */
const char   *_ks_ptx_type_name          (KsPtxType type);

/* ---- the decoded program -------------------------------------------------- */

typedef struct _KsEmuWarp KsEmuWarp;
typedef struct _KsEmuBlock KsEmuBlock;
typedef struct _KsEmuRun KsEmuRun;
typedef struct _KsEmuInsn KsEmuInsn;

/* Runs insn for the lanes in mask (guard applied; never 0 for a handler that
 * is not control). A control handler (insn->control) sets the warp's pc and
 * lanes itself and is called with mask 0 too. */
typedef void (*KsEmuExecFn) (KsEmuWarp *w, const KsEmuInsn *insn, guint32 mask);

struct _KsEmuInsn
{
  KsEmuExecFn fn;
  /* Operands: register-file offsets (slot × 32) of values, or predicate
   * indices, in the order the handler documents. */
  guint32 o[6];
  gint64 imm;        /* an address's offset, or a handler's constant */
  guint32 aux;       /* handler-specific: a call site, a mode, a type */
  guint32 target;    /* a branch's instruction, a callee's function */
  guint16 guard;     /* predicate index + 1; 0: unguarded */
  guint8 guard_neg;
  guint8 control;
  guint8 size;       /* bytes of a memory element or of the operation's type */
  guint8 vec;        /* elements of a vector access */
  guint8 space;      /* KsEmuSpace of a memory access */
  guint8 flags;      /* handler-specific */
  guint32 func;      /* the function the instruction belongs to */
  guint32 loc;       /* index into module->locs */
};

typedef struct
{
  guint file;        /* .file index; 0: none */
  guint line;
  guint32 parent;    /* while parsing: the loc it was inlined at; 0: none */
} KsEmuLoc;

/* Special registers with a slot, filled per worker (those that are the same
 * for a warp position in every block), per block (%ctaid) or per call
 * (the frame). %clock and the timers are read by their own handler. */
typedef enum
{
  KS_EMU_SR_TID_X, KS_EMU_SR_TID_Y, KS_EMU_SR_TID_Z,
  KS_EMU_SR_NTID_X, KS_EMU_SR_NTID_Y, KS_EMU_SR_NTID_Z,
  KS_EMU_SR_CTAID_X, KS_EMU_SR_CTAID_Y, KS_EMU_SR_CTAID_Z,
  KS_EMU_SR_NCTAID_X, KS_EMU_SR_NCTAID_Y, KS_EMU_SR_NCTAID_Z,
  KS_EMU_SR_LANEID, KS_EMU_SR_WARPID, KS_EMU_SR_NWARPID,
  KS_EMU_SR_LANEMASK_EQ, KS_EMU_SR_LANEMASK_LT, KS_EMU_SR_LANEMASK_LE,
  KS_EMU_SR_LANEMASK_GT, KS_EMU_SR_LANEMASK_GE,
  KS_EMU_SR_SMID, KS_EMU_SR_NSMID, KS_EMU_SR_GRIDID,
  KS_EMU_SR_DYNAMIC_SMEM, KS_EMU_SR_TOTAL_SMEM,
  KS_EMU_SR_ZERO, KS_EMU_SR_ONE,  /* the cluster registers of a cluster of one block */
  KS_EMU_SR_FRAME,                /* the lane's local frame: where the current function's
                                   * .local variables start */
  KS_EMU_SR_SCRATCH,              /* where results sent to `_` go */
  KS_EMU_SR_CARRY,                /* CC.CF of add.cc and its kin */
  KS_EMU_N_SPECIAL,
} KsEmuSpecial;

typedef enum
{
  KS_EMU_VAR_GLOBAL,  /* .global and .const: memory of the launch, at a generic address */
  KS_EMU_VAR_SHARED,
  KS_EMU_VAR_LOCAL,
  KS_EMU_VAR_KPARAM,  /* an entry's parameter */
  KS_EMU_VAR_FPARAM,  /* a device function's parameter, return value, or call argument */
} KsEmuVarKind;

typedef struct
{
  char *name;
  KsEmuVarKind kind;
  KsEmuSpace space;    /* as declared: GLOBAL, CONST, SHARED, LOCAL, PARAM */
  KsPtxType type;
  guint64 size;        /* bytes; 0 for extern shared (dynamic) */
  guint64 align;
  guint8 *init;        /* initial bytes of .global/.const (size bytes), or NULL: zeros */
  gint func;           /* the declaring function; -1: module scope */
  gboolean dynamic;    /* extern .shared … name[]: the dynamic shared memory */
  guint64 address;     /* GLOBAL: generic address; LOCAL: offset in the frame;
                        * KPARAM: offset in the parameter buffer; FPARAM: offset in the
                        * per-lane parameter memory */
  guint32 slot;        /* SHARED: the slot that holds its offset for the launch's entry */
} KsEmuVar;

typedef struct
{
  char *name;
  gboolean is_entry;
  gboolean defined;
  gboolean recursive;       /* on a cycle of the call graph: a call saves its state */
  guint32 start, end;       /* instructions */
  GPtrArray *params;        /* KsEmuVar (borrowed from module->vars), in order */
  GPtrArray *rets;          /* KsEmuVar: .func return parameters */
  guint32 param_size;       /* KPARAM bytes of an entry */
  GArray *reg_slots;        /* guint32: its register slots (a call that recurses saves them) */
  guint32 pred_first, pred_count;
  guint32 fparam_first, fparam_size; /* its bytes of the per-lane parameter memory */
  guint32 local_size, local_align;   /* its frame */
  guint32 reqntid[3], maxntid[3];    /* 0: not given */
  GArray *callees;          /* guint32 function indices */
  GPtrArray *shared_used;   /* KsEmuVar (borrowed): the .shared variables its code names */
  /* Entries: filled by the module's layout. */
  guint64 shared_static;
  guint64 dynamic_offset;   /* where extern shared memory starts */
  guint64 stack_bytes;      /* local memory a thread needs without recursion */
  GArray *shared_slots;     /* KsEmuSlotValue: the shared variables' offsets */
} KsEmuFunc;

typedef struct
{
  guint32 slot;
  guint64 value;
} KsEmuSlotValue;

typedef enum
{
  KS_EMU_CALL_FUNC,
  KS_EMU_CALL_VPRINTF,
  KS_EMU_CALL_ASSERTFAIL,
} KsEmuCallKind;

typedef struct
{
  guint32 src;    /* bytes of the per-lane parameter memory */
  guint32 dst;
  guint32 size;
} KsEmuCopy;

typedef struct
{
  KsEmuCallKind kind;
  guint32 callee;
  guint32 first_arg, n_args;  /* in module->copies: caller's argument → callee's parameter */
  KsEmuCopy ret;              /* callee's return parameter → caller's; size 0: none */
  guint32 arg_offsets[5];     /* builtins: where their arguments are */
} KsEmuCallSite;

struct _KsEmuModule
{
  KsEmuInsn *code;
  guint32 n_code;
  GPtrArray *funcs;         /* KsEmuFunc */
  GHashTable *func_index;   /* name → index + 1 */
  GPtrArray *vars;          /* KsEmuVar, all of them */
  GArray *locs;             /* KsEmuLoc */
  GPtrArray *files;         /* char *, by .file index (NULL where not declared) */
  GArray *consts;           /* KsEmuSlotValue: immediates and addresses */
  GArray *calls;            /* KsEmuCallSite */
  GArray *copies;           /* KsEmuCopy */
  guint32 n_slots;
  guint32 n_preds;
  guint32 fparam_size;      /* per lane */
  guint64 global_size;      /* the .global/.const image at KS_EMU_MODULE_BASE */
  guint8 *global_image;     /* their initial bytes */
  guint32 specials_used;    /* bit per KsEmuSpecial the code reads */
  guint32 scratch_pred;     /* where predicates sent to `_` go; G_MAXUINT32: none yet */
  GPtrArray *entries;       /* KsEmuFunc (borrowed), the defined .entry ones in order */
};

/* ks-emu-program.c: an empty module, and freeing one. */
KsEmuModule  *_ks_emu_module_alloc       (void);
void          _ks_emu_module_destroy     (KsEmuModule *module);
KsEmuFunc    *_ks_emu_module_find        (const KsEmuModule *module, const char *name,
                                          guint32 *index);
/* The function of that name, declared now when it is not yet. */
KsEmuFunc    *_ks_emu_module_add_func    (KsEmuModule *module, const char *name, guint32 *index);
/* After parsing: call graph, recursion, stack sizes, shared layouts. */
gboolean      _ks_emu_module_layout      (KsEmuModule *module, GError **error);
void          _ks_emu_func_free          (KsEmuFunc *func);
void          _ks_emu_var_free           (KsEmuVar *var);

/* ---- parsing and decoding ------------------------------------------------- */

typedef enum
{
  KS_PTX_OPND_REG,     /* value register or special register: slot */
  KS_PTX_OPND_PRED,    /* predicate register: pred; negated for !%p */
  KS_PTX_OPND_IMM,
  KS_PTX_OPND_SYM,     /* a variable (var) or a function (func) */
  KS_PTX_OPND_ADDR,    /* [base+offset] */
  KS_PTX_OPND_VEC,     /* {a, b, …} */
  KS_PTX_OPND_LIST,    /* (a, b, …) of a call */
  KS_PTX_OPND_SINK,    /* _ */
  KS_PTX_OPND_CLOCK,   /* %clock, %clock64, %globaltimer…: read when executed */
} KsPtxOperandKind;

typedef enum
{
  KS_PTX_IMM_INT,
  KS_PTX_IMM_F32,      /* 0fXXXXXXXX */
  KS_PTX_IMM_F64,      /* 0dXXXXXXXXXXXXXXXX or a decimal fraction */
} KsPtxImmKind;

typedef struct _KsPtxOperand KsPtxOperand;
struct _KsPtxOperand
{
  KsPtxOperandKind kind;
  gboolean negated;
  guint32 slot;           /* REG; ADDR with a register base */
  guint32 pred;           /* PRED */
  guint32 pair;           /* the p of d|p (G_MAXUINT32: none) */
  guint32 clock;          /* CLOCK: which one */
  KsPtxImmKind imm_kind;
  guint64 bits;           /* IMM; ADDR with an absolute base */
  KsEmuVar *var;          /* SYM; ADDR with a symbol base */
  gint func;              /* SYM naming a function: its index; -1 */
  char *name;             /* SYM: as written (for messages) */
  gboolean addr_reg;      /* ADDR: the base is a register (slot) */
  gint64 offset;          /* ADDR */
  guint n_elems;          /* VEC, LIST */
  KsPtxOperand *elems;
};

#define KS_PTX_MAX_PARTS 16

typedef struct
{
  char *text;                      /* the opcode as written: "ld.global.f32" */
  const char *parts[KS_PTX_MAX_PARTS]; /* split at the dots; parts[0] is the base */
  guint n_parts;
  KsPtxOperand *ops;
  guint n_ops;
  guint line;                      /* in the PTX */
} KsPtxInsn;

/* An opcode's modifiers, sorted: types in order, the space, the vector
 * width, the rounding, and the flags; what is left is in rest[] for the
 * decoder to take (take_mod) — a decoder refuses what it leaves there. */
typedef enum
{
  KS_PTX_RND_NONE, KS_PTX_RND_RN, KS_PTX_RND_RZ, KS_PTX_RND_RM, KS_PTX_RND_RP,
  KS_PTX_RND_RNI, KS_PTX_RND_RZI, KS_PTX_RND_RMI, KS_PTX_RND_RPI, KS_PTX_RND_RNA,
} KsPtxRounding;

typedef struct
{
  KsPtxType types[4];
  guint n_types;
  gboolean has_space;
  KsEmuSpace space;
  guint vec;
  KsPtxRounding rounding;
  const char *rest[KS_PTX_MAX_PARTS];
  guint n_rest;
} KsPtxMods;

typedef struct _KsEmuBuild KsEmuBuild;

/* TRUE: decoded into insn; FALSE: the form is not supported (the caller says
 * which instruction, unless an error is already set). */
typedef gboolean (*KsEmuDecodeFn) (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m,
                                   KsEmuInsn *insn);

typedef struct
{
  const char *base;
  KsEmuDecodeFn decode;
} KsEmuDecoder;

extern const KsEmuDecoder _ks_emu_decoders_int[];
extern const KsEmuDecoder _ks_emu_decoders_cmp[];
extern const KsEmuDecoder _ks_emu_decoders_bits[];
extern const KsEmuDecoder _ks_emu_decoders_float[];
extern const KsEmuDecoder _ks_emu_decoders_cvt[];
extern const KsEmuDecoder _ks_emu_decoders_mem[];
extern const KsEmuDecoder _ks_emu_decoders_control[];
extern const KsEmuDecoder _ks_emu_decoders_warp[];

/* add, sub, mul, mad, div, abs, neg, min, max of a float type, which the
 * integer group hands to the float group. */
gboolean      _ks_emu_decode_float_shared (KsEmuBuild *b, const KsPtxInsn *pi, KsPtxMods *m,
                                           KsEmuInsn *insn);

/* The lexer: tokens of the whole text. */
typedef enum
{
  KS_PTX_TOK_EOF,
  KS_PTX_TOK_WORD,     /* identifiers, directives, opcodes, registers */
  KS_PTX_TOK_NUMBER,
  KS_PTX_TOK_STRING,
  KS_PTX_TOK_PUNCT,
} KsPtxTokenKind;

typedef struct
{
  KsPtxTokenKind kind;
  guint line;
  guint len;
  const char *text;    /* into the source (STRING: without the quotes) */
} KsPtxToken;

GArray       *_ks_ptx_lex                (const char *ptx, GError **error);

/* The parser, which builds the module and calls the decoder. */
KsEmuModule  *_ks_ptx_parse              (const char *ptx, GError **error);

/* What the decoders use (ks-emu-decode.c). */
struct _KsEmuBuild
{
  KsEmuModule *module;
  KsEmuFunc *func;           /* being parsed */
  guint32 func_index;
  GError *error;             /* the first one */
  guint line;                /* of the instruction being decoded */
  GHashTable *const_slots;   /* guint64 value → slot + 1 */
  GArray *code;              /* KsEmuInsn */
  GArray *fixups;            /* KsEmuFixup: branches to labels of the function */
};

typedef struct
{
  guint32 insn;
  char *label;
  guint line;
} KsEmuFixup;

gboolean      _ks_emu_decode             (KsEmuBuild *b, const KsPtxInsn *pi, KsEmuInsn *insn);
void          _ks_emu_build_error        (KsEmuBuild *b, const char *format,
                                          ...) G_GNUC_PRINTF (2, 3);
gboolean      _ks_ptx_take_mod           (KsPtxMods *m, const char *mod);
/* The n-th type (from the front; negative: from the back); NONE when absent. */
KsPtxType     _ks_ptx_mods_type          (const KsPtxMods *m, gint n);
/* Register-file offsets of operands; G_MAXUINT32 and an error when the
 * operand cannot be one. An immediate is converted to type. */
guint32       _ks_emu_src                (KsEmuBuild *b, const KsPtxOperand *op, KsPtxType type);
guint32       _ks_emu_dst                (KsEmuBuild *b, const KsPtxOperand *op);
/* A destination and n - 1 sources of type into insn->o[0..n-1]; FALSE when
 * the instruction has another number of operands. */
gboolean      _ks_emu_operands           (KsEmuBuild *b, const KsPtxInsn *pi, KsEmuInsn *insn,
                                          guint n, KsPtxType type);
guint32       _ks_emu_const_slot         (KsEmuBuild *b, guint64 value);
guint32       _ks_emu_pred               (KsEmuBuild *b, const KsPtxOperand *op);
/* An address operand as a base slot and an offset (into insn->o[0] and
 * insn->imm), and the space its symbol implies (GENERIC when a register). */
gboolean      _ks_emu_address            (KsEmuBuild *b, const KsPtxOperand *op, KsEmuInsn *insn,
                                          guint32 *base_slot, KsEmuSpace *space,
                                          KsEmuVar **var);
/* A branch's target, resolved when the function's labels are known. */
void          _ks_emu_branch_fixup       (KsEmuBuild *b, const KsPtxOperand *label);
guint32       _ks_emu_new_callsite       (KsEmuBuild *b, const KsEmuCallSite *site);
/* The function a call names (declared later, or only declared: an index all
 * the same, checked by the layout). */
guint32       _ks_emu_func_ref           (KsEmuBuild *b, const char *name);
guint32       _ks_emu_add_copy           (KsEmuBuild *b, const KsEmuCopy *copy);
/* Modifiers a decoder allows and ignores (cache operators, scopes, orders). */
void          _ks_ptx_drop_ignorable     (KsPtxMods *m);

/* ---- running -------------------------------------------------------------- */

typedef struct
{
  guint64 base;        /* device address */
  guint64 size;
  guint8 *host;
  char *name;          /* for findings: “out”, or the variable's name */
  gboolean is_variable;
  gboolean read_only;  /* .const */
  /* Writers tracked (ks_emu_launch_track_writers), or NULL. */
  gint32 *block_of, *thread_of;
  guint64 owner_elem;
} KsEmuAlloc;

typedef struct
{
  guint32 ret_pc;
  guint32 func;        /* the caller's */
  guint32 call_site;
  guint64 frame;       /* the caller's frame */
  gsize saved;         /* where the callee's state starts in the lane's save area, or G_MAXSIZE */
} KsEmuFrame;

typedef struct
{
  GArray *frames;      /* KsEmuFrame */
  GByteArray *saved;   /* registers of recursive callees, while they are called again */
} KsEmuLaneStack;

typedef enum
{
  KS_EMU_WARP_RUNNING,
  KS_EMU_WARP_BARRIER,
  KS_EMU_WARP_EXITED,
} KsEmuWarpState;

struct _KsEmuWarp
{
  guint64 *regs;            /* [slot][lane] */
  guint32 *preds;           /* a lane mask per predicate */
  KsEmuBlock *block;
  const KsEmuInsn *code;
  guint32 pc;               /* of the lanes running now */
  guint32 mask;             /* the lanes running now */
  guint32 other_min;        /* the lowest pc of the other lanes; G_MAXUINT32: none */
  guint32 alive;            /* lanes that are threads of the block */
  guint32 exited;
  KsEmuWarpState state;
  guint32 index;            /* in the block */
  guint32 wsync;            /* bar.warp.sync epoch, for racecheck */
  guint32 lane_pc[KS_EMU_WARP_SIZE];
  /* Waiting at a barrier. */
  const KsEmuInsn *bar_insn;
  guint32 bar_mask;
  /* Device functions and local memory. */
  guint8 *fparams;          /* [lane][module->fparam_size] */
  guint8 *local[KS_EMU_WARP_SIZE];
  guint64 local_size[KS_EMU_WARP_SIZE];
  KsEmuLaneStack stacks[KS_EMU_WARP_SIZE];
  const KsEmuAlloc *last_alloc;
  guint64 lane_insns;
  guint64 insns;
};

/* Per byte of shared memory, for racecheck and initcheck. Interval numbers
 * grow over the whole launch on a worker (a block starts a new one, each
 * barrier too), so that nothing is reset between blocks: a byte is
 * initialized when its last write is of this block's intervals. */
typedef struct
{
  guint32 w_interval;       /* 0: never written */
  guint32 r_interval;       /* of the reads since that write */
  guint32 w_pc, r_pc;       /* the instructions (r_pc: the first read's) */
  guint16 w_tid, r_tid;     /* thread in the block (r_tid: the first reader) */
  guint16 r_other;          /* another thread that read; KS_EMU_NONE: none */
  guint16 r_warp;           /* warp of the readers; KS_EMU_MANY: several */
  guint16 w_wsync, r_wsync; /* the warp's bar.warp.sync epoch at the access (the latest read) */
  guint8 w_atomic;
} KsEmuShadow;

#define KS_EMU_NONE 0xffff
#define KS_EMU_MANY 0xffff

struct _KsEmuBlock
{
  KsEmuRun *run;
  const KsEmuModule *module;
  KsDim3 id;
  guint64 linear;
  guint64 seq;              /* the block's place in the order blocks start in */
  KsEmuWarp *warps;
  guint n_warps;
  guint n_threads;
  guint8 *shared;
  guint64 shared_size;
  KsEmuShadow *shadow;      /* NULL: no shared checks */
  guint32 interval;         /* the current barrier interval */
  guint32 first_interval;   /* this block's first */
  guint32 next_interval;    /* the worker's counter */
  gboolean stop;            /* a fault: the block runs no further */
  char *fault_message;      /* the first fault's */
  /* Barriers: threads arrived, per barrier id, and bar.red's sums. */
  guint32 bar_arrived[16];
  guint32 bar_expected[16];
  guint32 bar_red_popc[16];
  gboolean bar_red_and[16], bar_red_or[16];
  /* What the block reports, merged in block order. */
  GPtrArray *findings;      /* KsEmuFinding */
  GArray *finding_keys;     /* guint64 per finding: 0, or what deduplicates it */
  GHashTable *seen_keys;
  guint64 n_findings;
  GString *printf_out;
  guint64 printf_lines;
  guint64 lane_insns;
  guint64 global_atomics, shared_atomics;
};

struct _KsEmuRun
{
  const KsEmuModule *module;
  const KsEmuFunc *entry;
  guint32 entry_index;
  KsDim3 grid, block_dim;
  guint64 n_blocks;
  guint64 dynamic_shared;
  guint64 shared_size;      /* static + dynamic */
  guint8 *params;           /* the entry's parameter buffer */
  guint32 params_size;
  KsEmuAlloc *allocs;       /* sorted by base */
  guint n_allocs;
  guint8 *module_data;      /* this launch's copy of the .global/.const image */
  gboolean shared_checks;
  gint64 deadline;          /* monotonic µs; 0: none */
  guint time_limit_ms;
  GCancellable *cancellable;
  gint stop;                /* atomic: KS_EMU_STOP_* */
  guint64 next_block;       /* atomic */
  guint64 *block_order;     /* the blocks' start order, or NULL: by index */
  guint resident;           /* blocks a worker runs at once (ks_emu_launch_set_resident_blocks) */
  gint64 start_us;
};

enum
{
  KS_EMU_STOP_NONE,
  KS_EMU_STOP_FAULT,
  KS_EMU_STOP_TIMEOUT,
  KS_EMU_STOP_CANCELLED,
};

/* The lanes of a mask, as `lane`: all 32 in a loop the compiler can
 * vectorise when the warp is converged, else bit by bit. */
#define KS_EMU_FOR_LANES(mask, lane, ...)                                      \
  G_STMT_START {                                                               \
    if ((mask) == KS_EMU_FULL_MASK)                                            \
      {                                                                        \
        for (guint lane = 0; lane < KS_EMU_WARP_SIZE; lane++)                  \
          { __VA_ARGS__ }                                                      \
      }                                                                        \
    else                                                                       \
      {                                                                        \
        for (guint32 lanes_left_ = (mask); lanes_left_ != 0;                   \
             lanes_left_ &= lanes_left_ - 1)                                   \
          {                                                                    \
            guint lane = (guint) __builtin_ctz (lanes_left_);                  \
            __VA_ARGS__                                                        \
          }                                                                    \
      }                                                                        \
  } G_STMT_END

/* ---- executors (ks-emu-exec-*.c) -------------------------------------------
 *
 * An executor runs one decoded instruction for the lanes of `mask`; its
 * operands are register-file offsets in insn->o[] (the destination first). */

#define KS_EMU_HANDLER(name) \
  static void name (KsEmuWarp *w, const KsEmuInsn *insn, guint32 mask)
#define KS_EMU_D (w->regs + insn->o[0])
#define KS_EMU_A (w->regs + insn->o[1])
#define KS_EMU_B (w->regs + insn->o[2])
#define KS_EMU_C (w->regs + insn->o[3])

/* d = expr of x = a (of type T), y = b (of type Y) and z = c (of type T),
 * truncated to T: the element-wise executors of the integer and bit
 * instructions. */
#define KS_EMU_UNARY(name, T, expr)                                            \
  KS_EMU_HANDLER (name)                                                        \
  {                                                                            \
    guint64 *d = KS_EMU_D;                                                     \
    const guint64 *a = KS_EMU_A;                                               \
    KS_EMU_FOR_LANES (mask, l, {                                               \
      T x = (T) a[l];                                                          \
      d[l] = (guint64) (T) (expr);                                             \
    });                                                                        \
  }
#define KS_EMU_BINARY2(name, T, Y, expr)                                       \
  KS_EMU_HANDLER (name)                                                        \
  {                                                                            \
    guint64 *d = KS_EMU_D;                                                     \
    const guint64 *a = KS_EMU_A, *b = KS_EMU_B;                                \
    KS_EMU_FOR_LANES (mask, l, {                                               \
      T x = (T) a[l];                                                          \
      Y y = (Y) b[l];                                                          \
      d[l] = (guint64) (T) (expr);                                             \
    });                                                                        \
  }
#define KS_EMU_BINARY(name, T, expr) KS_EMU_BINARY2 (name, T, T, expr)
#define KS_EMU_TERNARY(name, T, expr)                                          \
  KS_EMU_HANDLER (name)                                                        \
  {                                                                            \
    guint64 *d = KS_EMU_D;                                                     \
    const guint64 *a = KS_EMU_A, *b = KS_EMU_B, *c = KS_EMU_C;                 \
    KS_EMU_FOR_LANES (mask, l, {                                               \
      T x = (T) a[l], y = (T) b[l], z = (T) c[l];                              \
      d[l] = (guint64) (T) (expr);                                             \
    });                                                                        \
  }

/* The lanes of mask leave the warp (exit, or a fault). */
static inline void
_ks_emu_exit_lanes (KsEmuWarp *w, guint32 mask)
{
  w->exited |= mask;
  if ((w->alive & ~w->exited) == 0)
    w->state = KS_EMU_WARP_EXITED;
}

static inline float
ks_emu_f32 (guint64 v)
{
  guint32 u = (guint32) v;
  float f;

  memcpy (&f, &u, sizeof f);
  return f;
}

static inline guint64
ks_emu_from_f32 (float f)
{
  guint32 u;

  memcpy (&u, &f, sizeof u);
  return u;
}

static inline double
ks_emu_f64 (guint64 v)
{
  double d;

  memcpy (&d, &v, sizeof d);
  return d;
}

static inline guint64
ks_emu_from_f64 (double d)
{
  guint64 u;

  memcpy (&u, &d, sizeof u);
  return u;
}

/* .ftz: a subnormal becomes a zero of its sign. */
static inline float
ks_emu_ftz (float f)
{
  guint32 u;

  memcpy (&u, &f, sizeof u);
  if ((u & 0x7f800000u) == 0)
    u &= 0x80000000u;
  memcpy (&f, &u, sizeof f);
  return f;
}

static inline void
ks_emu_set_pred (KsEmuWarp *w, guint32 pred, guint32 mask, guint32 bits)
{
  w->preds[pred] = (w->preds[pred] & ~mask) | (bits & mask);
}

static inline gint64
ks_emu_sext (guint64 v, guint bytes)
{
  guint shift = 64 - 8 * bytes;

  return (gint64) (v << shift) >> shift;
}

static inline guint64
ks_emu_zext (guint64 v, guint bytes)
{
  return bytes >= 8 ? v : v & ((G_GUINT64_CONSTANT (1) << (8 * bytes)) - 1);
}

/* Half and bfloat16 conversions (ks-emu-exec-cvt.c); mode a KsPtxRounding. */
double        _ks_emu_half_to_double     (guint16 h);
guint16       _ks_emu_double_to_half     (double d, guint mode);
guint16       _ks_emu_float_to_bf16      (float f, guint mode);
/* A PTX rounding as the host's mode (FE_*), for fesetround. */
int           _ks_emu_round_mode         (guint ptx_rounding);
/* x, a non-negative value with a fraction, to an integer by the rounding,
 * the value's sign deciding the direction of .rm and .rp. */
double        _ks_emu_round_magnitude    (double x, gboolean negative, guint mode);

/* ---- memory (ks-emu-memory.c) --------------------------------------------- */

/* Where a lane's access goes: a host pointer, or NULL when it was reported
 * (the access is then suppressed). */
guint8       *_ks_emu_access             (KsEmuWarp *w, guint lane, const KsEmuInsn *insn,
                                          KsEmuSpace space, guint64 address, guint size,
                                          KsEmuAccess access);
/* Reads a NUL-terminated string from a generic address (printf, assert);
 * NULL when it is not in memory. At most max bytes. */
char         *_ks_emu_read_string        (KsEmuWarp *w, guint lane, guint64 address, gsize max);
/* The host bytes at a generic address and how many follow it in their
 * memory, without a check or a finding; NULL where there is no memory. */
const guint8 *_ks_emu_host_span          (KsEmuWarp *w, guint lane, guint64 address, gsize *avail);
const KsEmuAlloc *_ks_emu_find_alloc     (const KsEmuRun *run, guint64 address);
/* Racecheck and initcheck of a shared access of size bytes at offset. */
void          _ks_emu_shadow_check       (KsEmuWarp *w, guint lane, const KsEmuInsn *insn,
                                          guint64 offset, guint size, KsEmuAccess access);
/* A generic address as the space it falls in and the space's own address. */
KsEmuSpace    _ks_emu_generic_space      (guint64 address, guint64 *space_address);

/* ---- control (ks-emu-exec-control.c) ------------------------------------- */

/* After lanes changed pc: the lowest pc's lanes run next. */
void          _ks_emu_regroup            (KsEmuWarp *w);
/* Runs the warp for at most budget instructions or until it waits or exits. */
void          _ks_emu_warp_run           (KsEmuWarp *w, guint budget);
/* A warp waiting at a barrier: which one, and its release (with bar.red's
 * result for its lanes). */
guint         _ks_emu_bar_id             (const KsEmuWarp *w);
void          _ks_emu_bar_release        (KsEmuWarp *w, guint id);

/* ---- findings (ks-emu-finding.c) ------------------------------------------ */

KsDim3        _ks_emu_thread_of          (const KsEmuBlock *block, guint tid);
/* A finding at insn for (warp, lane), its source place filled in; message
 * still to be set. */
KsEmuFinding *_ks_emu_finding_new        (KsEmuWarp *w, guint lane, const KsEmuInsn *insn,
                                          KsEmuFindingKind kind);
/* "    at file.cu:12 in name\n    by thread (x,y,z) in block (x,y,z)" */
char         *_ks_emu_finding_where      (const KsEmuModule *module, const KsEmuFinding *f);
/* Takes the finding; key 0 or one that makes a repeat of it not count. */
void          _ks_emu_block_report       (KsEmuBlock *block, KsEmuFinding *finding, guint64 key);
/* A finding the kernel cannot go on after: the block stops, and the run. */
void          _ks_emu_block_fault        (KsEmuBlock *block, KsEmuFinding *finding);
const char   *_ks_emu_space_name         (KsEmuSpace space);  /* "__global__" */

/* The run's report, from the blocks' in block order (thread-safe). */
typedef struct _KsEmuCollector KsEmuCollector;

KsEmuCollector *_ks_emu_collector_new    (KsEmuResult *result);
/* Takes what the block reported (its findings, its printf output). */
void          _ks_emu_collector_deliver  (KsEmuCollector *collector, KsEmuBlock *block);
/* Merges what is left, frees the collector; the first fault's message. */
char         *_ks_emu_collector_finish   (KsEmuCollector *collector);
const char   *_ks_emu_loc_file           (const KsEmuModule *module, guint32 loc);
guint         _ks_emu_loc_line           (const KsEmuModule *module, guint32 loc);

/* ---- builtins (ks-emu-printf.c) ------------------------------------------- */

/* vprintf(format, args) for one lane; returns what vprintf returns. */
gint32        _ks_emu_vprintf            (KsEmuWarp *w, guint lane, const KsEmuInsn *insn,
                                          guint64 format, guint64 args);
void          _ks_emu_assertfail         (KsEmuWarp *w, guint lane, const KsEmuInsn *insn,
                                          guint64 message, guint64 file, guint32 line,
                                          guint64 function);

G_END_DECLS
