/* dlsym_trampoline.S: libkprof's exported dlsym.  It asks kprof_dlsym_hook() whether the symbol is a
 * driver function libkprof wraps; if not, it JUMPS to glibc's dlsym with the caller's return address
 * still on the stack, so dlsym(RTLD_NEXT, ...) keeps resolving relative to the library that called it.
 * A C wrapper cannot promise that: its tail call becomes a `call` at -O0/-O1 and under ThreadSanitizer,
 * after which another preloaded library's RTLD_NEXT lookups resolve relative to libkprof. */
#if defined(__x86_64__)
        .text
        .globl  dlsym
        .type   dlsym, @function
        .p2align 4
dlsym:
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
        ret                             /* a wrapper: return it */
1:      jmp     *kprof_dlsym_next(%rip) /* everything else: glibc's dlsym, as if called directly */
        .cfi_endproc
        .size   dlsym, .-dlsym
#else
#error "libkprof's dlsym trampoline is written for x86-64 only"
#endif
        .section .note.GNU-stack,"",@progbits
