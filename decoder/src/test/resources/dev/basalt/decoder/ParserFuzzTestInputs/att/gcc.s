	.file	"loops.c"
	.text
	.p2align 4
	.globl	sum
	.type	sum, @function
sum:
.LFB0:
	.cfi_startproc
	testq	%rsi, %rsi
	jle	.L4
	leaq	(%rdi,%rsi,8), %rdx
	xorl	%eax, %eax
	.p2align 4,,10
	.p2align 3
.L3:
	addq	(%rdi), %rax
	addq	$8, %rdi
	cmpq	%rdx, %rdi
	jne	.L3
	ret
	.p2align 4,,10
	.p2align 3
.L4:
	xorl	%eax, %eax
	ret
	.cfi_endproc
.LFE0:
	.size	sum, .-sum
	.p2align 4
	.globl	copy
	.type	copy, @function
copy:
.LFB1:
	.cfi_startproc
	testq	%rdx, %rdx
	jle	.L7
	xorl	%eax, %eax
	.p2align 4,,10
	.p2align 3
.L9:
	movq	(%rsi,%rax,8), %rcx
	addq	$1, %rcx
	movq	%rcx, (%rdi,%rax,8)
	addq	$1, %rax
	cmpq	%rax, %rdx
	jne	.L9
.L7:
	ret
	.cfi_endproc
.LFE1:
	.size	copy, .-copy
	.p2align 4
	.globl	digits
	.type	digits, @function
digits:
.LFB2:
	.cfi_startproc
	movq	%rdi, %rdx
	xorl	%esi, %esi
	movabsq	$-3689348814741910323, %rdi
	.p2align 4,,10
	.p2align 3
.L12:
	movq	%rdx, %rax
	movq	%rdx, %rcx
	addq	$1, %rsi
	mulq	%rdi
	shrq	$3, %rdx
	cmpq	$9, %rcx
	ja	.L12
	movq	%rsi, %rax
	ret
	.cfi_endproc
.LFE2:
	.size	digits, .-digits
	.p2align 4
	.globl	find
	.type	find, @function
find:
.LFB3:
	.cfi_startproc
	testq	%rsi, %rsi
	jle	.L17
	xorl	%eax, %eax
	jmp	.L16
	.p2align 4,,10
	.p2align 3
.L19:
	addq	$1, %rax
	cmpq	%rax, %rsi
	je	.L17
.L16:
	cmpl	%edx, (%rdi,%rax,4)
	jne	.L19
	ret
	.p2align 4,,10
	.p2align 3
.L17:
	movq	$-1, %rax
	ret
	.cfi_endproc
.LFE3:
	.size	find, .-find
	.p2align 4
	.globl	matvec
	.type	matvec, @function
matvec:
.LFB4:
	.cfi_startproc
	testq	%rcx, %rcx
	jle	.L25
	leaq	0(,%r8