// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A two-rank MPI ping-pong that checks every byte (the clients step,
 * selftests/swroce_clients.sh). Rank 0 sends a pattern, rank 1 adds one
 * to each byte and sends it back, rank 0 checks; sizes 1 B to 4 MiB, so
 * that eager, buffered and rendezvous (RDMA) protocols all run.
 * Prints one line and exits 0 only if every byte came back as expected.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEN		(4 << 20)
#define ROUNDS		4

static unsigned char pattern(size_t i, int len, int round)
{
	return (unsigned char)(i * 31 + (size_t)len + (size_t)round * 7);
}

static int rank0(unsigned char *buf, int len, int round)
{
	int i;

	for (i = 0; i < len; i++)
		buf[i] = pattern(i, len, round);
	MPI_Send(buf, len, MPI_BYTE, 1, round, MPI_COMM_WORLD);
	memset(buf, 0, len);
	MPI_Recv(buf, len, MPI_BYTE, 1, round, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	for (i = 0; i < len; i++) {
		if (buf[i] != (unsigned char)(pattern(i, len, round) + 1)) {
			printf("mpi_pingpong: %d bytes, round %d: byte %d is %#x, want %#x\n",
			       len, round, i, buf[i],
			       (unsigned char)(pattern(i, len, round) + 1));
			return 1;
		}
	}
	return 0;
}

static void rank1(unsigned char *buf, int len, int round)
{
	int i;

	MPI_Recv(buf, len, MPI_BYTE, 0, round, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	for (i = 0; i < len; i++)
		buf[i]++;
	MPI_Send(buf, len, MPI_BYTE, 0, round, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	int rank, size, len, round, bad = 0, msgs = 0;
	unsigned char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	buf = malloc(MAX_LEN);
	if (size != 2 || !buf) {
		if (rank == 0)
			printf("mpi_pingpong: needs 2 ranks and %d bytes\n",
			       MAX_LEN);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (len = 1; len <= MAX_LEN && !bad; len *= 4) {
		for (round = 0; round < ROUNDS && !bad; round++) {
			if (rank == 0)
				bad = rank0(buf, len, round);
			else
				rank1(buf, len, round);
			msgs += 2;
			/* rank 0 tells rank 1 whether to go on */
			MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
		}
	}
	if (rank == 0 && !bad)
		printf("mpi_pingpong: %d messages, every byte checked\n", msgs);
	free(buf);
	MPI_Finalize();
	return bad ? 1 : 0;
}
