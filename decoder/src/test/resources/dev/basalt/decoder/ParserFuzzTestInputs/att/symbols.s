movq 8+log(%rip), %rax
.p2align 4
call *24(%rax)
