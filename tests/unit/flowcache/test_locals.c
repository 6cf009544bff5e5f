/* SPDX-License-Identifier: BSD-3-Clause */
/* placeholder: being written */
int main(void) { return 77; }
