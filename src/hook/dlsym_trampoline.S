/* dlsym_trampoline.S: libkprof's exported dlsym.  It asks kprof_dlsym_hook() whether the symbol is a
 * driver function libkprof wraps; if not, it JUMPS to the next dlsym (glibc's, or another preloaded
 * library's) with the caller's return address still on the stack, so dlsym(RTLD_NEXT, ...) keeps
 * resolving relative to the library that called it.
 * A C wrapper cannot promise that: its tail call becomes a `call` at -O0/-O1 and under ThreadSanitizer,
 * after which another preloaded library's RTLD_NEXT lookups resolve relative to libkprof.
 *
 * It is exported under the two version nodes glibc's dlsym has on x86-64 (libkprof.map defines them):
 * dlsym@@GLIBC_2.34 (the default, what programs linked since glibc 2.34 ask for) and dlsym@GLIBC_2.2.5,
 * so that another preload which chains with dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5") (HAMi-core does)
 * finds libkprof's when libkprof comes after it, instead of passing over it to glibc's. */
#if defined(__x86_64__)
        .text
        /* Two names for one function, each renamed to one versioned dlsym below (`remove`): one
         * symbol with two versions cannot be used in the debug information's relocations. */
        .globl  kprof_dlsym_entry
        .type   kprof_dlsym_entry, @function
        .globl  kprof_dlsym_entry_compat
        .type   kprof_dlsym_entry_compat, @function
        .p2align 4
kprof_dlsym_entry:
kprof_dlsym_entry_compat:
        .cfi_startproc
        pushq   %rdi                    /* handle */
        .cfi_adjust_cfa_offset 8
        pushq   %rsi                    /* name */
        .cfi_adjust_cfa_offset 8
        subq    $8, %rsp                /* 16-byte alignment for the call */
        .cfi_adjust_cfa_offset 8
        call    kprof_dlsym_hook        /* hidden: a direct call, no PLT */
        addq    $8, %rsp
        .cfi_adjust_cfa_offset -8
        popq    %rsi
        .cfi_adjust_cfa_offset -8
        popq    %rdi
        .cfi_adjust_cfa_offset -8
        testq   %rax, %rax
        jz      1f
        cmpq    $1, %rax                /* KPROF_DLSYM_NOT_FOUND: answer NULL (the hook set dlerror) */
        jne     2f
        xorl    %eax, %eax
2:      ret                             /* a wrapper (or NULL): return it */
1:      jmp     *kprof_dlsym_next(%rip) /* everything else: the next dlsym, as if called directly */
        .cfi_endproc
        .size   kprof_dlsym_entry, .-kprof_dlsym_entry
        .size   kprof_dlsym_entry_compat, .-kprof_dlsym_entry_compat
        .symver kprof_dlsym_entry, dlsym@@GLIBC_2.34, remove
        .symver kprof_dlsym_entry_compat, dlsym@GLIBC_2.2.5, remove
#else
#error "libkprof's dlsym trampoline is written for x86-64 only"
#endif
        .section .note.GNU-stack,"",@progbits
