// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Device faults (ERROR records) in `vneuron-profile view`: kept by the timeline on their
 * execution's place, named in the text summary, the JSON and the Perfetto trace;
 * impossible ones counted as malformed (synthetic timelines from vnp_synth.h, and the
 * command on a profile of the real kernel with an ERROR record added, view_util.h).
 */
#include "view_util.h"

/* Text with the summary's line wrapping undone: each newline and its indent one space. */
static char *unwrap(const char *in)
{
	char *out = malloc(strlen(in) + 1), *q = out;

	while (*in) {
		if (*in == '\n' && in[1] == ' ') {
			while (in[1] == ' ')
				in++;
			*q++ = ' ';
			in++;
			continue;
		}
		*q++ = *in++;
	}
	*q = 0;
	return out;
}

/* An output of a synthetic view into a string. */
static char *synth_out(struct synth *s, int (*fn)(FILE *, const struct vnp_view *))
{
	struct vnp_view v = { .tl = &s->tl, .m = &s->m, .a = &s->a, .top = 5 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (fn(f, &v)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* Execution exec on core 0: EXEC_START at 0, an instruction, EXEC_END (status) at 1 us. */
static void synth_run_exec(struct synth *s, uint32_t exec, unsigned int status,
			   unsigned int reason)
{
	size_t first = s->n, i;

	synth_exec(s, 0, 1000);
	synth_insn(s, 1, VNEF_OP_COPY, 100, 200, 0);
	s->r[first + 1].opcode = (uint16_t)status;
	s->r[first + 1].elements = reason;
	for (i = first; i < s->n; i++)
		s->r[i].exec_seq = exec;
}

/*
 * One fault per execution, of each kind: kept with every field, on its execution's place
 * in the timeline (executions are laid out back to back, 1 us each), in time order, and
 * named in the text summary and the JSON.
 */
TEST(device_faults_are_kept_and_named)
{
	static struct vnef_instr vec[8];
	struct synth *s = synth_new();
	const struct vnp_fault *f;
	char *out, *txt;

	/* the program's VectorE entry 7, so the fault names its opcode */
	vec[7].opcode = VNEF_OP_TENSOR_TENSOR;
	s->prog.instr[VNEURON_ENGINE_VECTOR] = vec;
	s->prog.ninstr[VNEURON_ENGINE_VECTOR] = 8;
	synth_debug(s, VNEF_STREAM_DMA(3), 2, "k.c", 42, "mlp/fc1");
	synth_run_exec(s, 0, VNEURON_EXEC_OK, 0);
	synth_run_exec(s, 1, VNEURON_EXEC_FAULT, VNEURON_REASON_FAULT_SBUF);
	synth_fault(s, 1, VNEF_STREAM_DMA(3), 2, 500, VNEURON_REASON_FAULT_SBUF, VNEF_MEM_SBUF,
		    131, 0, 64);
	synth_run_exec(s, 2, VNEURON_EXEC_FAULT, VNEURON_REASON_FAULT_PSUM);
	synth_fault(s, 2, VNEURON_ENGINE_VECTOR, 7, 300, VNEURON_REASON_FAULT_PSUM,
		    VNEF_MEM_PSUM, 5, 2048, 0);
	synth_run_exec(s, 3, VNEURON_EXEC_FAULT, VNEURON_REASON_FAULT_SEM);
	synth_fault(s, 3, VNEURON_ENGINE_GPSIMD, 1, 250, VNEURON_REASON_FAULT_SEM, 0, 5, 3, 0);
	synth_run_exec(s, 4, VNEURON_EXEC_FAULT, VNEURON_REASON_FAULT_HBM);
	synth_fault(s, 4, VNEF_STREAM_DMA(0), 0, 100, VNEURON_REASON_FAULT_HBM, VNEF_MEM_HBM,
		    1, 1000, 24);
	synth_run_exec(s, 5, VNEURON_EXEC_FAULT, VNEURON_REASON_FAULT_STATE);
	synth_fault(s, 5, VNEURON_ENGINE_TENSOR, 0, 0, VNEURON_REASON_FAULT_STATE, 0, 0, 0, 0);
	ASSERT_EQ(0, synth_run(s, 8));
	EXPECT_EQ(0, s->tl.malformed);
	ASSERT_EQ(5, s->tl.nfaults);
	EXPECT_EQ(1, s->tl.exec_status[VNEURON_EXEC_OK]);
	EXPECT_EQ(5, s->tl.exec_status[VNEURON_EXEC_FAULT]);
	f = &s->tl.faults[0];
	EXPECT_EQ(0, f->core);
	EXPECT_EQ(1, f->exec);
	EXPECT_EQ(VNEF_STREAM_DMA(3), f->stream);
	EXPECT_EQ(2, f->pc);
	EXPECT_EQ(VNEURON_REASON_FAULT_SBUF, f->reason);
	EXPECT_EQ(VNEF_MEM_SBUF, f->mem);
	EXPECT_EQ(131, f->index);
	EXPECT_EQ(0, f->offset);
	EXPECT_EQ(64, f->len);
	EXPECT_EQ(500 * NS, f->model_ps);
	EXPECT_EQ(1500 * NS, f->time);		/* execution 1 starts after execution 0 */
	EXPECT_EQ(2300 * NS, s->tl.faults[1].time);
	EXPECT_EQ(VNEURON_ENGINE_VECTOR, s->tl.faults[1].stream);
	EXPECT_EQ(3250 * NS, s->tl.faults[2].time);
	EXPECT_EQ(4100 * NS, s->tl.faults[3].time);
	EXPECT_EQ(5000 * NS, s->tl.faults[4].time);
	/* faults are no work: the events' figures do not count them */
	EXPECT_EQ(6, s->m.event_count);

	out = synth_out(s, vnp_summary_text);
	ASSERT_NE(NULL, out);
	txt = unwrap(out);
	if (getenv("VNP_DUMP"))
		fputs(out, stderr);
	EXPECT_NE(NULL, strstr(txt, "executions ended: 1 OK, 5 FAULT"));
	EXPECT_NE(NULL, strstr(txt, "Device faults (5)"));
	EXPECT_NE(NULL, strstr(txt, "1. exec 1, DMA q3 desc 2, k.c:42 in mlp/fc1, at 1.500 us: "
			       "DMA chunk outside SBUF: partition 131, bytes 0..63"));
	EXPECT_NE(NULL, strstr(txt, "2. exec 2, VectorE pc 7 (TENSOR_TENSOR), at 2.300 us: operand "
			       "outside PSUM "
			       "partition 5 (offset 2048)"));
	EXPECT_NE(NULL, strstr(txt, "3. exec 3, GpSimdE pc 1, at 3.250 us: semaphore 5 value 3 "
			       "beyond its table"));
	EXPECT_NE(NULL, strstr(txt, "4. exec 4, DMA q0 desc 0, at 4.100 us: DMA chunk outside "
			       "HBM tensor 1 (y): bytes 1000..1023"));
	EXPECT_NE(NULL, strstr(txt, "5. exec 5, TensorE pc 0, at 5.000 us: operands the engine "
			       "cannot hold"));
	/* every line of the section fits 80 columns */
	{
		const char *p = strstr(out, "Device faults"), *nl;

		ASSERT_NE(NULL, p);
		for (; (nl = strchr(p, '\n')) && nl != p; p = nl + 1)
			EXPECT_GE(80, nl - p);
	}
	free(txt);
	free(out);

	out = synth_out(s, vnp_summary_json);
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, "\"exec_status\":{\"OK\":1,\"FAULT\":5}"));
	EXPECT_NE(NULL, strstr(out, "\"faults\":[\n {\"core\":0,\"exec\":1,\"engine\":\"DMA q3\","
			       "\"stream\":7,\"queue\":3,\"pc\":2,\"opcode\":\"DMA\","
			       "\"reason\":\"sbuf\",\"reason_code\":7,\"memory\":\"SBUF\","
			       "\"index\":131,\"offset\":0,\"length\":64,\"time_ps\":1500000,"
			       "\"exec_time_ps\":500000,\"file\":\"k.c\",\"line\":42,"
			       "\"scope\":\"mlp/fc1\",\"what\":\"DMA chunk outside SBUF: partition "
			       "131, bytes 0..63\"}"));
	EXPECT_NE(NULL, strstr(out, "\"reason\":\"semaphore\",\"reason_code\":10,"
			       "\"memory\":\"none\",\"index\":5,\"offset\":3,"));
	EXPECT_NE(NULL, strstr(out, "\"tensor_name\":\"y\""));
	EXPECT_NE(NULL, strstr(out, "\"engine\":\"VectorE\",\"stream\":1,\"pc\":7,"
			       "\"opcode\":\"TENSOR_TENSOR\",\"reason\":\"psum\","));
	free(out);
	synth_free(s);
}

/* ERROR records no device writes: counted as malformed, kept nowhere. */
TEST(impossible_fault_records_are_malformed)
{
	struct synth *s = synth_new();
	char *out;

	synth_run_exec(s, 0, VNEURON_EXEC_FAULT, VNEURON_REASON_FAULT_SBUF);
	/* reasons that are no fault */
	synth_fault(s, 0, 1, 0, 100, VNEURON_REASON_DEADLOCK, VNEF_MEM_SBUF, 0, 0, 4);
	synth_fault(s, 0, 1, 0, 100, VNEURON_REASON_FAULT_STATE + 1, VNEF_MEM_SBUF, 0, 0, 4);
	synth_fault(s, 0, 1, 0, 100, 0, 0, 0, 0, 0);
	/* streams out of range: the core itself, a DMA queue past the last */
	synth_fault(s, 0, 1, 0, 100, VNEURON_REASON_FAULT_SBUF, VNEF_MEM_SBUF, 0, 0, 4)->engine =
		VNEURON_TRACE_ENGINE_CORE;
	synth_fault(s, 0, VNEF_STREAM_DMA(0), 0, 100, VNEURON_REASON_FAULT_SBUF, VNEF_MEM_SBUF,
		    0, 0, 4)->dma_queue = VNEF_DMA_QUEUES;
	/* an unknown memory, an end before the start */
	synth_fault(s, 0, 1, 0, 100, VNEURON_REASON_FAULT_SBUF, VNEF_MEM_HBM + 1, 0, 0, 4);
	synth_fault(s, 0, 1, 0, 100, VNEURON_REASON_FAULT_SBUF, VNEF_MEM_SBUF, 0, 0, 4)
		->model_end_ps = 0;
	/* and one good one */
	synth_fault(s, 0, 2, 3, 100, VNEURON_REASON_FAULT_SBUF, VNEF_MEM_SBUF, 9, 16, 4);
	ASSERT_EQ(0, synth_run(s, 0));
	EXPECT_EQ(7, s->tl.malformed);
	ASSERT_EQ(1, s->tl.nfaults);
	EXPECT_EQ(VNEURON_ENGINE_SCALAR, s->tl.faults[0].stream);
	EXPECT_EQ(9, s->tl.faults[0].index);
	out = synth_out(s, vnp_summary_text);
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, "7 malformed records skipped"));
	EXPECT_NE(NULL, strstr(out, "Device faults (1)"));
	free(out);
	out = synth_out(s, vnp_summary_json);
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, "\"malformed_records\":7,"));
	free(out);
	synth_free(s);
}

/* The command on a real kernel's profile with the store faulting: every output shows it. */
TEST_F(view, device_fault_in_every_output)
{
	char path[160], out[160], cmd[800], want[256];
	void *img;
	size_t size;

	ASSERT_EQ(0, build(0, &img, &size));
	snprintf(path, sizeof(path), "%s/fault.vntf", self->dir);
	ASSERT_EQ(0, capture(img, size, path, 0, 1));
	free(img);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->naive_prog, path));
	{
		char *txt = unwrap(self->out);

		if (getenv("VNP_DUMP"))
			fputs(self->out, stderr);
		EXPECT_NE(NULL, strstr(txt, "executions ended: 1 FAULT"));
		EXPECT_NE(NULL, strstr(txt, "Device faults (1)"));
		EXPECT_NE(NULL, strstr(txt, "1. exec 0, DMA q8 desc 0, "));
		/* the builder's scope of the store: exp/store, then the operation */
		snprintf(want, sizeof(want), BUILD_FILE ":%d in exp/store/", store_line);
		EXPECT_NE(NULL, strstr(txt, want));
		EXPECT_NE(NULL, strstr(txt, ": DMA chunk outside SBUF: partition 131, bytes 0..63"));
		EXPECT_EQ(NULL, strstr(txt, "malformed"));
		free(txt);
	}
	free(self->out);
	/* summary-json and json: the fields, checked by a JSON parser */
	snprintf(out, sizeof(out), "%s/fault.json", self->dir);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f json -o %s", self->naive_prog, path,
			      out));
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; s = json.load(open(sys.argv[1]))"
		 "[\"summary\"]; f = s[\"faults\"]; g = f[0]; sys.exit(not (len(f) == 1 and "
		 "s[\"exec_status\"] == {\"FAULT\": 1} and s[\"malformed_records\"] == 0 and "
		 "g[\"engine\"] == \"DMA q8\" and g[\"queue\"] == 8 and g[\"pc\"] == 0 and "
		 "g[\"exec\"] == 0 and g[\"reason\"] == \"sbuf\" and g[\"memory\"] == \"SBUF\" and "
		 "g[\"index\"] == 131 and g[\"offset\"] == 0 and g[\"length\"] == 64 and "
		 "g[\"line\"] == %d and g[\"file\"].endswith(\"" BUILD_FILE "\") and "
		 "g[\"scope\"].startswith(\"exp/store/\") and \"partition 131\" in g[\"what\"]))' %s",
		 store_line, out);
	EXPECT_EQ(0, system(cmd));
	free(self->out);
	/* perfetto: the instant on DMA q8's track */
	snprintf(out, sizeof(out), "%s/fault.pftrace", self->dir);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f perfetto -o %s", self->naive_prog,
			      path, out));
	snprintf(cmd, sizeof(cmd), "protoc -Itests/perfetto --decode=perfetto.protos.Trace "
		 "tests/perfetto/trace.proto < %s | grep -c 'name: \"device fault: DMA chunk "
		 "outside SBUF: partition 131, bytes 0..63\"' | grep -qx 1", out);
	EXPECT_EQ(0, system(cmd));
}

TEST_HARNESS_MAIN
