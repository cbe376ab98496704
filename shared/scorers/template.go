package scorers

import (
	"strconv"
	"strings"

	"github.com/evalobs/evalapi/shared/store"
)

// Field names of a judge's answer, the defaults of §2.7's chain-poll template.
const (
	valueField       = "rating"
	explanationField = "explanation"
)

const systemPrompt = "You are a careful evaluator. You read one interaction of an AI system and answer " +
	"one decision question about it, following the instructions exactly."

// chainPollTemplate builds the prompt the judges of a decision version answer: the question,
// what an answer may be (from the output type and the options), and the JSON to reply with.
// {input} and {output} are filled with the record being scored when the version runs.
func chainPollTemplate(question, outputType string, options store.AnswerOptions, cot bool) *store.ChainPollTemplate {
	var b strings.Builder
	b.WriteString("Answer the following question about the interaction below.\n\n")
	b.WriteString("Question: " + question + "\n\n")
	b.WriteString(answerInstruction(outputType, options.Names()) + "\n\n")
	b.WriteString("Input:\n{input}\n\nOutput:\n{output}\n\n")
	b.WriteString(replyInstruction(cot))
	description := question
	prompt := systemPrompt
	return &store.ChainPollTemplate{
		Template:              b.String(),
		MetricSystemPrompt:    &prompt,
		MetricDescription:     &description,
		ValueFieldName:        valueField,
		ExplanationFieldName:  explanationField,
		MetricFewShotExamples: []store.FewShotExample{},
		ResponseSchema:        responseSchema(outputType, options.Names()),
	}
}

// userPromptTemplate builds the judges' template of an llm version created from a user
// prompt alone (the original client's create_custom_llm_metric sends nothing else): the
// prompt is the instructions, then what an answer may be for the output type, then the
// interaction unless the prompt places it itself ({input}, {output} and their aliases, as
// the judge fills them), then the JSON to reply with. docs/EVALUATION.md shows it.
func userPromptTemplate(userPrompt, outputType string, cot bool) *store.ChainPollTemplate {
	var b strings.Builder
	b.WriteString("Evaluate the interaction below by these instructions.\n\n")
	b.WriteString("Instructions:\n" + userPrompt + "\n\n")
	b.WriteString(answerInstruction(outputType, nil) + "\n\n")
	if !placesInteraction(userPrompt) {
		b.WriteString("Input:\n{input}\n\nOutput:\n{output}\n\n")
	}
	b.WriteString(replyInstruction(cot))
	description := userPrompt
	prompt := systemPrompt
	return &store.ChainPollTemplate{
		Template:              b.String(),
		MetricSystemPrompt:    &prompt,
		MetricDescription:     &description,
		ValueFieldName:        valueField,
		ExplanationFieldName:  explanationField,
		MetricFewShotExamples: []store.FewShotExample{},
		ResponseSchema:        responseSchema(outputType, nil),
	}
}

// placesInteraction tells whether a prompt names where the input or the output goes.
func placesInteraction(prompt string) bool {
	for _, p := range []string{"{input}", "{query}", "{prompt}", "{output}", "{response}", "{answer}"} {
		if strings.Contains(prompt, p) {
			return true
		}
	}
	return false
}

func replyInstruction(cot bool) string {
	s := `Reply with a JSON object with the keys "` + explanationField + `" and "` + valueField + `". `
	if cot {
		return s + `Think step by step in "` + explanationField + `" before you give your answer in "` + valueField + `".`
	}
	return s + `Keep "` + explanationField + `" to one or two sentences and give your answer in "` + valueField + `".`
}

func answerInstruction(outputType string, labels []string) string {
	switch {
	case outputType == "multilabel":
		return "Answer with the list of every option that applies, chosen from: " + quoted(labels) + "."
	case outputType == "discrete":
		return "Answer with exactly one of these levels, listed from lowest to highest: " + quoted(labels) + "."
	case len(labels) > 0:
		return "Answer with exactly one of: " + quoted(labels) + "."
	case outputType == "boolean":
		return "Answer true or false."
	case outputType == "boolean_probability":
		return "Answer with the probability, between 0 and 1, that the answer is yes."
	case outputType == "count":
		return "Answer with a whole number."
	case outputType == "percentage":
		return "Answer with a number between 0 and 1."
	}
	return "Answer the question in a few words."
}

// responseSchema is the JSON schema of a judge's reply.
func responseSchema(outputType string, labels []string) map[string]any {
	var rating map[string]any
	switch {
	case outputType == "multilabel":
		rating = map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": labels}}
	case len(labels) > 0:
		rating = map[string]any{"type": "string", "enum": labels}
	case outputType == "boolean":
		rating = map[string]any{"type": "boolean"}
	case outputType == "boolean_probability", outputType == "percentage":
		rating = map[string]any{"type": "number", "minimum": 0, "maximum": 1}
	case outputType == "count":
		rating = map[string]any{"type": "integer", "minimum": 0}
	default:
		rating = map[string]any{"type": "string"}
	}
	return map[string]any{
		"type":       "object",
		"properties": map[string]any{explanationField: map[string]any{"type": "string"}, valueField: rating},
		"required":   []string{explanationField, valueField},
	}
}

func quoted(labels []string) string {
	q := make([]string, len(labels))
	for i, l := range labels {
		q[i] = strconv.Quote(l)
	}
	return strings.Join(q, ", ")
}
