dot:                                    # gcc -O2 -S, loop of a dot product
        test    rdx, rdx
        jle     .L4
        xor     eax, eax
        pxor    xmm1, xmm1
.L3:
        movsd   xmm0, QWORD PTR [rdi+rax*8]
        mulsd   xmm0, QWORD PTR [rsi+rax*8]
        add     rax, 1
        addsd   xmm1, xmm0
        cmp     rdx, rax
        jne     .L3
.L4:
        ret
