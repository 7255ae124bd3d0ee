add rax, rbx; imul rax, rax
1:
 dec rcx
 jnz 1b
# LLVM-MCA-BEGIN r
vfmadd231pd ymm1, ymm4, [rsi]
# LLVM-MCA-END
