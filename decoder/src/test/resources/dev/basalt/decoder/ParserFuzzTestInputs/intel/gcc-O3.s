	.file	"loops.c"
	.intel_syntax noprefix
	.text
	.p2align 4
	.globl	sum
	.type	sum, @function
sum:
.LFB0:
	.cfi_startproc
	test	rsi, rsi
	jle	.L7
	cmp	rsi, 1
	je	.L8
	mov	rdx, rsi
	mov	rax, rdi
	pxor	xmm0, xmm0
	shr	rdx
	sal	rdx, 4
	add	rdx, rdi
	.p2align 4,,10
	.p2align 3
.L4:
	movdqu	xmm2, XMMWORD PTR [rax]
	add	rax, 16
	paddq	xmm0, xmm2
	cmp	rdx, rax
	jne	.L4
	movdqa	xmm1, xmm0
	mov	rdx, rsi
	psrldq	xmm1, 8
	and	rdx, -2
	and	esi, 1
	paddq	xmm0, xmm1
	movq	rax, xmm0
	je	.L11
.L3:
	add	rax, QWORD PTR [rdi+rdx*8]
	ret
	.p2align 4,,10
	.p2align 3
.L11:
	ret
	.p2align 4,,10
	.p2align 3
.L7:
	xor	eax, eax
	ret
.L8:
	xor	edx, edx
	xor	eax, eax
	jmp	.L3
	.cfi_endproc
.LFE0:
	.size	sum, .-sum
	.p2align 4
	.globl	copy
	.type	copy, @function
copy:
.LFB1:
	.cfi_startproc
	test	rdx, rdx
	jle	.L12
	cmp	rdx, 1
	je	.L17
	mov	rcx, rdx
	movdqa	xmm1, XMMWORD PTR .LC0[rip]
	xor	eax, eax
	shr	rcx
	sal	rcx, 4
	.p2align 4,,10
	.p2align 3
.L15:
	movdqu	xmm0, XMMWORD PTR [rsi+rax]
	paddq	xmm0, xmm1
	movups	XMMWORD PTR [rdi+rax], xmm0
	add	rax, 16
	cmp	rax, rcx
	jne	.L15
	mov	rcx, rdx
	and	rcx, -2
	and	edx, 1
	je	.L19
.L14:
	mov	rax, QWORD PTR [rsi+rcx*8]
	add	rax, 1
	mov	QWORD PTR [rdi+rcx*8], rax
.L12:
	ret
	.p2align 4,,10
	.p2align 3
.L19:
	ret
.L17:
	xor	ecx, ecx
	jmp	.L14
	.cfi_endproc
.LFE1:
	.size	copy, .-copy
	.p2align 4
	.globl	digits
	.type	digits, @function
digits:
.LFB2:
	.cfi_startproc
	mov	rdx, rdi
	xor	esi, esi
	movabs	rdi, -3689348814741910323
	.p2align 4,,10
	.p2align 3
.L21:
	mov	